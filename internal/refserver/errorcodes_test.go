package refserver

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/cardnum"
	"github.com/stretchr/testify/require"
)

// notProduced lists the documented codes the reference server never
// answers, each with the reason. Every other documented code has a trigger
// in TestEveryErrorCodeOverRawHTTP.
var notProduced = map[openpay.Code]string{
	// The gateway answers 1004 when one of its own back-end services is
	// down; the reference server has none to lose.
	openpay.ErrServiceUnavailable: "no back-end service can be unavailable in process",
	// The gateway answers 1007 when a card network or bank refuses a funds
	// transfer; the server's payouts fail through the FailPayout simulation,
	// which records the failure on the payout instead.
	openpay.ErrFundsTransferRejected: "payout failures are simulated on the payout (FailPayout)",
}

// TestEveryErrorCodeOverRawHTTP triggers every documented code the server can
// answer, each on a fresh server, over plain HTTP, and checks the whole
// error object (status, category, http_code, description, request_id). The
// list of codes comes from the SDK's catalogue, so a code added there
// without a trigger here (or a reason in notProduced) fails.
func TestEveryErrorCodeOverRawHTTP(t *testing.T) {
	t.Parallel()
	card := func(number string) map[string]any {
		c := validCard(number)
		return map[string]any{"method": "card", "amount": 10, "description": "catalogue", "card": c}
	}
	triggers := map[openpay.Code]func(t *testing.T, env *testEnv) resp{
		openpay.ErrInternalServer: func(t *testing.T, env *testEnv) resp {
			env.s.routes.add("testPanic", http.MethodGet, "/v1/{merchant_id}/panic", http.StatusOK, func(c *call) (any, *Error) {
				panic("boom")
			})
			return env.get("/panic")
		},
		openpay.ErrBadRequest: func(t *testing.T, env *testEnv) resp { return env.post("/customers", `{"name":`) },
		openpay.ErrUnauthorized: func(t *testing.T, env *testEnv) resp {
			return env.do(http.MethodGet, env.mp("/charges"), "sk_wrong", nil)
		},
		openpay.ErrInvalidParameter: func(t *testing.T, env *testEnv) resp {
			return env.post("/charges", map[string]any{"method": "store", "amount": -1, "description": "x"})
		},
		openpay.ErrNotFound: func(t *testing.T, env *testEnv) resp { return env.get("/charges/trnotthere") },
		openpay.ErrDuplicateOrderID: func(t *testing.T, env *testEnv) resp {
			body := map[string]any{"method": "store", "amount": 1, "description": "x", "order_id": "dup-1"}
			requireOK(t, env.post("/charges", body), http.StatusOK)
			return env.post("/charges", body)
		},
		openpay.ErrAccountDeactivated: func(t *testing.T, env *testEnv) resp {
			cu := createCustomerHTTP(t, env, "Inactive", true)
			deactivateCustomer(env, cu)
			return env.post("/customers/"+cu+"/charges", map[string]any{"method": "store", "amount": 1, "description": "x"})
		},
		openpay.ErrRequestTooLarge: func(t *testing.T, env *testEnv) resp {
			return env.post("/customers", `{"name":"`+strings.Repeat("a", 1<<20)+`"}`)
		},
		openpay.ErrPublicKeyNotAllowed: func(t *testing.T, env *testEnv) resp {
			return env.do(http.MethodGet, env.mp("/charges"), env.m.PublicKey, nil)
		},
		openpay.ErrBankAccountExists: func(t *testing.T, env *testEnv) resp {
			cu := createCustomerHTTP(t, env, "Banked", false)
			body := map[string]any{"holder_name": "Juan Perez", "clabe": clabeBancomer}
			requireOK(t, env.post("/customers/"+cu+"/bankaccounts", body), http.StatusOK)
			return env.post("/customers/"+cu+"/bankaccounts", body)
		},
		openpay.ErrCardExists: func(t *testing.T, env *testEnv) resp {
			cu := createCustomerHTTP(t, env, "Carded", false)
			requireOK(t, env.post("/customers/"+cu+"/cards", validCard("4111111111111111")), http.StatusOK)
			return env.post("/customers/"+cu+"/cards", validCard("4111111111111111"))
		},
		openpay.ErrExternalIDExists: func(t *testing.T, env *testEnv) resp {
			body := map[string]any{"name": "Ext", "email": "ext@example.com", "external_id": "ext-1"}
			requireOK(t, env.post("/customers", body), http.StatusOK)
			return env.post("/customers", body)
		},
		openpay.ErrCardNumberInvalid: func(t *testing.T, env *testEnv) resp {
			return env.post("/cards", validCard("4111111111111112"))
		},
		openpay.ErrCardExpirationPast: func(t *testing.T, env *testEnv) resp {
			c := validCard("4111111111111111")
			c["expiration_year"] = "20"
			return env.post("/cards", c)
		},
		openpay.ErrCVVMissing: func(t *testing.T, env *testEnv) resp {
			c := validCard("4111111111111111")
			delete(c, "cvv2")
			return env.post("/charges", map[string]any{"method": "card", "amount": 10, "description": "x", "card": c})
		},
		openpay.ErrCVVInvalid: func(t *testing.T, env *testEnv) resp {
			c := validCard("4111111111111111")
			c["cvv2"] = "12"
			return env.post("/cards", c)
		},
		openpay.ErrCardNotValidForPoints: func(t *testing.T, env *testEnv) resp {
			b := card("4111111111111111")
			b["use_card_points"] = "ONLY_POINTS"
			return env.post("/charges", b)
		},
		openpay.ErrMerchantInsufficientFunds: func(t *testing.T, env *testEnv) resp {
			return env.post("/payouts", map[string]any{"method": "bank_account", "amount": 100, "description": "x",
				"bank_account": map[string]any{"holder_name": "Juan Perez", "clabe": clabeBancomer}})
		},
	}
	// The card codes come from the sandbox test cards.
	for _, tc := range cardnum.TestCards() {
		if tc.Outcome.Code == 0 {
			continue
		}
		number := tc.Number
		triggers[openpay.Code(tc.Outcome.Code)] = func(t *testing.T, env *testEnv) resp { return env.post("/charges", card(number)) }
	}

	for code := openpay.Code(1000); code <= 4001; code++ {
		if !code.Documented() {
			continue
		}
		if why, ok := notProduced[code]; ok {
			require.NotContains(t, triggers, code, "code %d is listed as never produced (%s) and has a trigger", code, why)
			continue
		}
		trigger, ok := triggers[code]
		if !ok && code == openpay.ErrTestCardInProduction {
			trigger = func(t *testing.T, _ *testEnv) resp {
				prod := newTestEnv(t, Options{Production: true})
				return prod.post("/cards", validCard("4111111111111111"))
			}
			ok = true
		}
		require.True(t, ok, "documented code %d has no trigger and no reason in notProduced", code)
		t.Run(strconv.Itoa(int(code)), func(t *testing.T) {
			t.Parallel()
			env := newTestEnv(t, Options{})
			r := trigger(t, env)
			requireError(t, r, int(code))
		})
	}
}
