package web

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDashboardBackTo(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"/_dashboard/merchants/m1/transactions?offset=25&type=charge", "/_dashboard/merchants/m1/transactions?offset=25&type=charge"},
		{"/_dashboard/", "/_dashboard/"},
		{"", "/_dashboard/"},
		{"https://evil.example/_dashboard/", "/_dashboard/"},
		{"//evil.example/_dashboard/", "/_dashboard/"},
		{"/_dashboard//evil", "/_dashboard/"},
		{"/v1/m1/charges", "/_dashboard/"},
		{"javascript:alert(1)", "/_dashboard/"},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, backTo(tc.in), tc.in)
	}
}

func TestDashboardPaging(t *testing.T) {
	t.Parallel()
	p := Paging{Offset: 0, Limit: 25, Total: 60}
	assert.False(t, p.HasPrev())
	assert.True(t, p.HasNext())
	assert.Equal(t, 25, p.Next())
	assert.Equal(t, 25, p.Last())
	p.Offset = 50
	assert.True(t, p.HasPrev())
	assert.False(t, p.HasNext())
	assert.Equal(t, 25, p.Prev())
	assert.Equal(t, 60, p.Last())
	p.Offset = 10
	assert.Equal(t, 0, p.Prev())
}

func TestDashboardHandles(t *testing.T) {
	t.Parallel()
	d := &Dashboard{}
	for path, want := range map[string]bool{
		"/_dashboard": true, "/_dashboard/": true, "/_dashboard/merchants/m1/": true,
		"/_dashboards": false, "/v1/m1/charges": false, "/_simulate/reset": false,
	} {
		assert.Equal(t, want, d.Handles(path), path)
	}
}
