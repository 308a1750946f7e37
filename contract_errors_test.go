package openpay_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sdkNotProduced lists the documented codes no SDK call can draw from the
// reference server, with the reason. Every other documented code has a
// trigger in TestContractEveryErrorCode.
// (The server's own failures, 1000, 1004 and 1007, are drawn with an
// injected fault.)
var sdkNotProduced = map[openpay.Code]string{}

// TestContractEveryErrorCode draws every documented code the server can
// answer through an SDK call, and checks what a merchant's code relies on:
// errors.Is on the code's sentinel and on its category, the HTTP status,
// a description, and no card number in the error's text.
func TestContractEveryErrorCode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	card := func(mutate func(*openpay.CardRequest)) openpay.CardRequest {
		r := cardRequest(openpaytest.CardVisa)
		mutate(&r)
		return r
	}
	store := func(orderID string) openpay.StoreCharge {
		return openpay.StoreCharge{Amount: openpay.MustAmount("10"), Description: "store", OrderID: orderID}
	}
	// injected arms a fault answering code on customer creation, which
	// the SDK does not retry (no order_id), and triggers it.
	injected := func(code openpay.Code) func(t *testing.T, k *contract) error {
		return func(t *testing.T, k *contract) error {
			require.NoError(t, k.srv.InjectFault(openpaytest.Fault{Method: "POST", Path: "/v1/{merchant_id}/customers", ErrorCode: code}))
			_, err := k.c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com"})
			return err
		}
	}
	triggers := map[openpay.Code]func(t *testing.T, k *contract) error{
		openpay.ErrInternalServer:        injected(openpay.ErrInternalServer),
		openpay.ErrServiceUnavailable:    injected(openpay.ErrServiceUnavailable),
		openpay.ErrFundsTransferRejected: injected(openpay.ErrFundsTransferRejected),
		openpay.ErrBadRequest: func(t *testing.T, k *contract) error {
			_, err := k.c.Customers.Create(ctx, openpay.CustomerRequest{Email: "sin.nombre@example.com"})
			return err
		},
		openpay.ErrUnauthorized: func(t *testing.T, k *contract) error {
			wrong, err := openpay.New(k.srv.MerchantID, "sk_00000000000000000000000000000000", openpay.WithBaseURL(k.srv.URL))
			require.NoError(t, err)
			_, err = wrong.Charges.ListPage(ctx, nil)
			return err
		},
		openpay.ErrInvalidParameter: func(t *testing.T, k *contract) error {
			_, err := k.c.Charges.Create(ctx, openpay.StoreCharge{Amount: openpay.MustAmount("10"), Description: strings.Repeat("d", 251)})
			return err
		},
		openpay.ErrNotFound: func(t *testing.T, k *contract) error {
			_, err := k.c.Charges.Get(ctx, "trnotthere000000000")
			return err
		},
		openpay.ErrDuplicateOrderID: func(t *testing.T, k *contract) error {
			_, err := k.c.Charges.Create(ctx, store("dup-1"))
			require.NoError(t, err)
			// An exact re-send is idempotent (issue 31); another amount
			// under the taken order_id is the gateway's 1006, held by the
			// conflict error.
			again := store("dup-1")
			again.Amount = openpay.MustAmount("11")
			_, err = k.c.Charges.Create(ctx, again)
			var conflict *openpay.OrderConflictError
			require.ErrorAs(t, err, &conflict)
			return err
		},
		openpay.ErrAccountDeactivated: func(t *testing.T, k *contract) error {
			cust := k.fundedCustomer(t, "Inactiva", "")
			require.NoError(t, k.srv.DeactivateCustomerAccount(cust.ID))
			_, err := k.c.Customer(cust.ID).Charges.Create(ctx, store(""))
			return err
		},
		openpay.ErrRequestTooLarge: func(t *testing.T, k *contract) error {
			_, err := k.c.Customers.Create(ctx, openpay.CustomerRequest{Name: strings.Repeat("n", 1<<20), Email: "grande@example.com"})
			return err
		},
		openpay.ErrPublicKeyNotAllowed: func(t *testing.T, k *contract) error {
			_, err := k.public.Charges.ListPage(ctx, nil)
			return err
		},
		openpay.ErrBankAccountExists: func(t *testing.T, k *contract) error {
			cust := k.fundedCustomer(t, "Banco", "")
			req := openpay.BankAccountRequest{CLABE: "032180000118359719", HolderName: "Banco"}
			_, err := k.c.Customer(cust.ID).BankAccounts.Create(ctx, req)
			require.NoError(t, err)
			_, err = k.c.Customer(cust.ID).BankAccounts.Create(ctx, req)
			return err
		},
		openpay.ErrCardExists: func(t *testing.T, k *contract) error {
			cust := k.fundedCustomer(t, "Tarjeta", "")
			_, err := k.c.Customer(cust.ID).Cards.Create(ctx, cardRequest(openpaytest.CardVisa))
			require.NoError(t, err)
			_, err = k.c.Customer(cust.ID).Cards.Create(ctx, cardRequest(openpaytest.CardVisa))
			return err
		},
		openpay.ErrExternalIDExists: func(t *testing.T, k *contract) error {
			req := openpay.CustomerRequest{Name: "Ext", Email: "ext@example.com", ExternalID: "ext-1"}
			_, err := k.c.Customers.Create(ctx, req)
			require.NoError(t, err)
			_, err = k.c.Customers.Create(ctx, req)
			return err
		},
		openpay.ErrCardNumberInvalid: func(t *testing.T, k *contract) error {
			_, err := k.c.Cards.Create(ctx, card(func(r *openpay.CardRequest) { r.Card.CardNumber = "4111111111111112" }))
			return err
		},
		openpay.ErrCardExpirationPast: func(t *testing.T, k *contract) error {
			_, err := k.c.Cards.Create(ctx, card(func(r *openpay.CardRequest) { r.Card.ExpirationYear = "20" }))
			return err
		},
		openpay.ErrCVVMissing: func(t *testing.T, k *contract) error {
			_, err := k.c.Cards.Create(ctx, card(func(r *openpay.CardRequest) { r.Card.CVV2 = "" }))
			return err
		},
		openpay.ErrTestCardInProduction: func(t *testing.T, _ *contract) error {
			prod := newContract(t, openpaytest.WithProduction())
			_, err := prod.c.Cards.Create(ctx, cardRequest(openpaytest.CardVisa))
			return err
		},
		openpay.ErrCardNotValidForPoints: func(t *testing.T, k *contract) error {
			c, err := k.c.Cards.Create(ctx, cardRequest(openpaytest.CardVisa))
			require.NoError(t, err)
			_, err = k.c.Cards.Points(ctx, c.ID)
			return err
		},
		openpay.ErrCVVInvalid: func(t *testing.T, k *contract) error {
			_, err := k.c.Cards.Create(ctx, card(func(r *openpay.CardRequest) { r.Card.CVV2 = "12" }))
			return err
		},
		openpay.ErrMerchantInsufficientFunds: func(t *testing.T, k *contract) error {
			_, err := k.c.Payouts.Create(ctx, openpay.InlineBankAccountPayout{BankAccount: openpay.BankAccountRequest{
				CLABE: "032180000118359719", HolderName: "Proveedor"}, Amount: openpay.MustAmount("1000000"), Description: "too much"})
			return err
		},
	}
	// The card declines: each test card's code, through an inline card charge.
	for _, tc := range openpaytest.SandboxCards() {
		if tc.Code == 0 {
			continue
		}
		number := tc.Number
		triggers[tc.Code] = func(t *testing.T, k *contract) error {
			_, err := k.c.Charges.Create(ctx, openpay.InlineCardCharge{Card: inlineCard(number), Amount: openpay.MustAmount("10"), Description: "decline"})
			return err
		}
	}

	for code := openpay.Code(1000); code <= 4001; code++ {
		if !code.Documented() {
			continue
		}
		if why, skip := sdkNotProduced[code]; skip {
			require.NotContains(t, triggers, code, "code %d is listed as not produced (%s) and has a trigger", code, why)
			continue
		}
		trigger, ok := triggers[code]
		require.True(t, ok, "documented code %d has no trigger and no reason in sdkNotProduced", code)
		t.Run(fmt.Sprint(int(code)), func(t *testing.T) {
			t.Parallel()
			err := trigger(t, newContract(t))
			require.Error(t, err)
			assert.ErrorIs(t, err, code)
			assert.ErrorIs(t, err, code.Category())
			var oe *openpay.Error
			require.ErrorAs(t, err, &oe)
			assert.NotEmpty(t, oe.Description)
			if code == openpay.ErrPublicKeyNotAllowed {
				// A public-key client refuses the call before sending it
				// (client.go), so no answer, status or request id exists;
				// the server's own 1010 is checked over raw HTTP.
				assert.Zero(t, oe.HTTPStatus)
				assert.Contains(t, oe.Description, "not sent")
			} else {
				assert.Equal(t, code.HTTPStatus(), oe.HTTPStatus)
				assert.NotEmpty(t, oe.RequestID)
			}
			for _, tc := range openpaytest.SandboxCards() {
				assert.NotContains(t, err.Error(), tc.Number)
			}
		})
	}
}

// TestContractErrorRiskData: an error body that carries the gateway's
// anti-fraud assessment (facts.md: risk_data {score, rules}) surfaces it on
// the *openpay.Error, score as written and rules redacted like the rest of
// the error, whatever form the score takes.
func TestContractErrorRiskData(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, score, want string
	}{
		{"score a string", `"0.87"`, "0.87"},
		{"score a number", `87`, "87"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := `{"category":"gateway","description":"The card was declined by the anti-fraud system","http_code":402,` +
				`"error_code":3005,"request_id":"1981cdb8-19cb-4bad-8256-e95d58bc035c",` +
				`"fraud_rules":["Billing <> BIN Country for VISA/MC"],` +
				`"risk_data":{"score":` + tt.score + `,"rules":["Billing <> BIN Country for VISA/MC","Card 4111111111111111 used 3 times in 1 hour"]}}`
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusPaymentRequired)
				_, _ = w.Write([]byte(body))
			}))
			t.Cleanup(srv.Close)
			c, err := openpay.New(testMerchant, testKey, openpay.WithBaseURL(srv.URL), openpay.WithDefaultClientIP("198.51.100.4"))
			require.NoError(t, err)

			_, err = c.Charges.Create(context.Background(), openpay.CardCharge{SourceID: "kxc4kolowhwz4vrbibgi",
				Amount: openpay.MustAmount("10.00"), Description: "fraud"})
			assert.ErrorIs(t, err, openpay.ErrCardFraud)
			var oe *openpay.Error
			require.ErrorAs(t, err, &oe)
			require.NotNil(t, oe.RiskData, "risk_data must not be dropped")
			assert.Equal(t, tt.want, string(oe.RiskData.Score))
			assert.Equal(t, []string{"Billing <> BIN Country for VISA/MC", "Card [redacted] used 3 times in 1 hour"}, oe.RiskData.Rules)
			assert.Equal(t, []string{"Billing <> BIN Country for VISA/MC"}, oe.FraudRules)
		})
	}

	// Without risk_data the field stays nil.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"category":"request","description":"not found","http_code":404,"error_code":1005,"request_id":"r"}`))
	}))
	t.Cleanup(srv.Close)
	c, err := openpay.New(testMerchant, testKey, openpay.WithBaseURL(srv.URL))
	require.NoError(t, err)
	_, err = c.Charges.Get(context.Background(), "trnotthere000000000")
	var oe *openpay.Error
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, openpay.ErrNotFound, oe.Code)
	assert.Nil(t, oe.RiskData)
}
