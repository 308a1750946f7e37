package openpay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Card data in request values never shows through fmt or slog; the JSON
// body still carries it (that is how it reaches the gateway).
func TestCardDataNeverPrinted(t *testing.T) {
	t.Parallel()
	const number, cvv = "4111111111111111", "987"
	card := CardDetails{CardNumber: number, CVV2: cvv, HolderName: "Juan Perez", ExpirationMonth: "12", ExpirationYear: "30"}
	values := []any{
		CardRequest{CardNumber: number, CVV2: cvv, HolderName: "Juan Perez", ExpirationMonth: "12", ExpirationYear: "30"},
		TokenRequest{CardNumber: number, CVV2: cvv, HolderName: "Juan Perez", ExpirationMonth: "12", ExpirationYear: "30"},
		card,
		InlineCardCharge{Card: card, Amount: MustAmount("10"), Description: "x"},
		SubscriptionRequest{PlanID: "p1", Card: &card},
		SubscriptionUpdateRequest{Card: &card},
		PayoutCardDetails{CardNumber: number, HolderName: "Juan", BankCode: "002"},
		InlineCardPayout{Card: PayoutCardDetails{CardNumber: number}},
		CardUpdateRequest{CVV2: cvv},
		CardCharge{SourceID: "k1", CVV2: cvv, Amount: MustAmount("1")},
	}
	for _, v := range values {
		var out bytes.Buffer
		fmt.Fprintf(&out, "%v|%+v|%#v|%s|", v, v, v, v)
		// No timestamps: their digits could contain the CVV by chance.
		opts := &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}}
		for _, h := range []slog.Handler{slog.NewTextHandler(&out, opts), slog.NewJSONHandler(&out, opts)} {
			slog.New(h).Info("request", "req", v)
		}
		text := out.String()
		assert.NotContains(t, text, number, "%T", v)
		assert.NotContains(t, text, cvv, "%T", v)
		if strings.Contains(fmt.Sprintf("%T", v), "Card") && !strings.Contains(fmt.Sprintf("%T", v), "Update") && !strings.Contains(fmt.Sprintf("%T", v), "CardCharge") {
			assert.Contains(t, text, "1111", "%T shows the last four digits", v)
		}
	}
	body, err := json.Marshal(values[0])
	require.NoError(t, err)
	assert.Contains(t, string(body), number, "the request body itself is untouched")
	assert.Contains(t, string(body), cvv)
}
