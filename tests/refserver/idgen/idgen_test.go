package idgen_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/openpay-go/openpay/internal/refserver/idgen"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The request ids are checked with a UUID parser of its own, which the
// SDK's module need not require: this test lives in the nested module
// tests/.

func TestRequestIDIsUUIDv4(t *testing.T) {
	t.Parallel()
	seed := int64(9)
	g := idgen.New(&seed)
	variants := map[byte]bool{}
	for range 200 {
		s := g.RequestID()
		u, err := uuid.Parse(s)
		require.NoError(t, err, s)
		assert.Equal(t, uuid.Version(4), u.Version(), s)
		assert.Equal(t, uuid.RFC4122, u.Variant(), s)
		variants[s[19]] = true
	}
	assert.Len(t, variants, 4, "all four variant nibbles occur")
}
