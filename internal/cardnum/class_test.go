package cardnum

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClass(t *testing.T) {
	assert.Equal(t, ClassApproved, Class("4111111111111111"))
	assert.Equal(t, ClassApproved, Class("4012888888881881"), "a card outside the table is approved, as in the sandbox")
	assert.Equal(t, ClassThreeDS, Class("5454545454545454"))
	assert.Equal(t, "stolen", Class("4000000000000119"))
	assert.Equal(t, "declined", Class("4000000000030017"))
	assert.Equal(t, "insufficient_funds", Class("4444444444444448"))
}

// TestClassCardRoundTrip: every test card is found again from its class,
// brand and masked number alone.
func TestClassCardRoundTrip(t *testing.T) {
	for _, c := range TestCards() {
		got, ok := ClassCard(Class(c.Number), c.Brand, Mask(c.Number))
		require.True(t, ok, c.Number)
		assert.Equal(t, c.Number, got.Number)
	}
}

func TestClassCardStandIn(t *testing.T) {
	// A Mastercard outside the table: an approved Mastercard test card.
	got, ok := ClassCard(ClassApproved, Mastercard, Mask("5200828282828210"))
	require.True(t, ok)
	assert.Equal(t, Mastercard, got.Brand)
	assert.Equal(t, ClassApproved, Class(got.Number))
	// No Mastercard is stolen: a stolen card of another brand.
	got, ok = ClassCard("stolen", Mastercard, "")
	require.True(t, ok)
	assert.Equal(t, "stolen", Class(got.Number))
	_, ok = ClassCard("no such class", Visa, "")
	assert.False(t, ok)
}
