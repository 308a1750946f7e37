package textpack

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

// TestCustomerGivesBackWhatItWasBuiltFrom, empty parts, long ones and
// non-ASCII ones included, with the head before them in one allocation.
func TestCustomerGivesBackWhatItWasBuiltFrom(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("ñ", 70000) // past what 16-bit offsets could hold
	for _, v := range [][5]string{
		{"Ana", "Uno", "ana@example.com", "5512345678", "ext-1"},
		{"", "", "", "", ""},
		{"José", "", "j@example.com", "", ""},
		{long, "x", long, "", long},
	} {
		head, c := NewCustomer([]byte("cu123"), v[0], v[1], v[2], v[3], v[4])
		assert.Equal(t, "cu123", head)
		assert.Equal(t, v, [5]string{c.Name(), c.LastName(), c.Email(), c.Phone(), c.ExternalID()})
		if v[0] != "" {
			assert.Equal(t, uintptr(unsafe.Pointer(unsafe.StringData(head)))+5, uintptr(unsafe.Pointer(unsafe.StringData(c.Name()))), "one allocation")
		}
	}
	head, c := NewCustomer(nil, "Ana", "", "", "", "e")
	assert.Empty(t, head)
	assert.Equal(t, "e", c.ExternalID())
}

var sinkHead string
var sinkCustomer Customer

// TestCustomerAllocatesOnce: the head and the five parts cost one
// allocation.
func TestCustomerAllocatesOnce(t *testing.T) {
	var buf [64]byte
	assert.Equal(t, 1.0, testing.AllocsPerRun(100, func() {
		sinkHead, sinkCustomer = NewCustomer(append(buf[:0], "cu123"...), "Ana", "Uno", "ana@example.com", "55", "x")
	}))
}
