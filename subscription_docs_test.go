package openpay

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The godoc says what a subscription merchant must know and the API alone
// does not show: what moves each status, what a failed renewal sends, what
// ChargeDate means once nothing is charged, Colombia's IVA on recurring
// charges, and the two deletes side by side.
func TestSubscriptionDocsSayWhatHappens(t *testing.T) {
	t.Parallel()
	lines, _ := publicDoc(t, ".", "github.com/openpay-go/openpay")
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strings.TrimSpace(l.text) + " ")
	}
	all := strings.Join(strings.Fields(b.String()), " ")
	for _, phrase := range []string{
		"TrialEndDate can change only while in trial",
		"sends both charge.failed and subscription.charge.failed carrying that same transaction",
		"a card update does not bring it back",
		"it is the day of the charge that was due when it stopped, a day in the past",
		"A Colombian (COP) plan is charged with no IVA",
		"the amount is credited to the customer's balance",
		"deleting its customer leaves each subscription cancelled, not gone",
		"Cancelling it again succeeds, so a retried Cancel is safe",
		"Openpay documents no field tying it to its subscription or plan",
		"only then is it safe to send it again",
	} {
		assert.Contains(t, all, phrase)
	}
}
