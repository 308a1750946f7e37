package conformance

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAllowlistMatching(t *testing.T) {
	a, err := ParseAllowlist(strings.NewReader(`
# comment
createCharge   $.card
*              $[*].card.bank_code
getCustomer    @status
listCharges    $["odd.name"]
`))
	require.NoError(t, err)
	for _, tt := range []struct {
		op, path string
		excused  bool
	}{
		{"createCharge", "$.card", true},
		{"createCharge", "$.card.brand", true},
		{"createCharge", "$.cardholder", false},
		{"getCharge", "$.card.brand", false},
		{"listCharges", "$[3].card.bank_code", true},
		{"listCharges", "$[3].card.bank_name", false},
		{"listCharges", `$["odd.name"].x`, true},
		{"listCharges", `$["odd"]`, false},
		{"getCustomer", StatusPath, true},
		{"getCustomer", "$.status", false},
	} {
		assert.Equal(t, tt.excused, a.Excuses(Difference{Operation: tt.op, Path: tt.path}), "%s %s", tt.op, tt.path)
	}
	var none *Allowlist
	assert.False(t, none.Excuses(Difference{Operation: "x", Path: "$"}))
	for _, bad := range []string{"createCharge", "createCharge card", "a $ b"} {
		_, err := ParseAllowlist(strings.NewReader(bad))
		assert.Error(t, err, bad)
	}
}
