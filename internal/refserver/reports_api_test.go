package refserver

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFeesReport(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	alipay := map[string]any{"method": "alipay", "amount": 2000, "description": "Cargo Alipay", "redirect_url": "https://shop.example/back"}
	charge := func(amount float64) string {
		id := requireOK(t, env.post("/charges", with(alipay, "amount", amount)), http.StatusOK)["id"].(string)
		_, err := env.s.CompleteCharge(env.m.ID, id)
		require.NoError(t, err)
		return id
	}
	first, second := charge(2000), charge(1000) // fees 2.00 and 1.00, in March
	// Paid in April: its due_date gives the payer until then (past its
	// due_date a charge takes no payment).
	pending := requireOK(t, env.post("/charges", with(alipay, "due_date", env.clock.Now().Add(40*24*time.Hour).Format(time.RFC3339))), http.StatusOK)["id"].(string)
	requireOK(t, env.post("/charges", cardCharge("", "source_id", nil, "card", validCard("4111111111111111"))), http.StatusOK)
	env.clock.Advance(31 * 24 * time.Hour) // April
	_, err := env.s.CompleteCharge(env.m.ID, pending)
	require.NoError(t, err)

	zero := map[string]any{"charged": 0.0, "charged_tax": 0.0, "charged_adjustments": 0.0, "charged_adjustments_tax": 0.0,
		"refunded": 0.0, "refunded_tax": 0.0, "refunded_adjustments": 0.0, "refunded_adjustments_tax": 0.0, "total": 0.0}
	march := with(zero, "charged", 3.0, "total", 3.0)
	april := with(zero, "charged", 2.0, "total", 2.0) // the pending charge, completed in April
	for q, want := range map[string]map[string]any{"year=2026&month=3": march, "year=2026&month=04": april, "year=2026&month=2": zero} {
		assert.Equal(t, want, requireOK(t, env.get("/reports/fees?"+q), http.StatusOK), q)
	}
	// The detail of charged lists the charges, newest first, each with its
	// fee; the others are empty.
	detail := env.get("/reports/fees/detail?year=2026&month=3&fee_type=charged")
	assert.Equal(t, []string{second, first}, ids(listOK(t, detail)))
	assert.Equal(t, map[string]any{"amount": 1.0, "tax": 0.0, "currency": "MXN"}, detail.arr(t)[0]["fee"])
	assert.Equal(t, []string{first}, ids(listOK(t, env.get("/reports/fees/detail?year=2026&month=3&fee_type=charged&offset=1&limit=1"))))
	for _, kind := range []string{"refunded", "charged_adjustments", "refunded_adjustments"} {
		assert.Empty(t, listOK(t, env.get("/reports/fees/detail?year=2026&month=3&fee_type="+kind)), kind)
	}
	// Another merchant sees nothing of them.
	other := env.do(http.MethodGet, "/v1/"+env.other.ID+"/reports/fees?year=2026&month=3", env.other.PrivateKey, nil)
	assert.Equal(t, zero, requireOK(t, other, http.StatusOK))

	for q, code := range map[string]int{
		"month=3": 1001, "year=2026": 1001, "year=abc&month=3": 1001, "year=2026&month=x": 1001,
		"year=1999&month=3": 1003, "year=2026&month=13": 1003, "year=2026&month=0": 1003,
	} {
		requireError(t, env.get("/reports/fees?"+q), code)
		requireError(t, env.get("/reports/fees/detail?fee_type=charged&"+q), code)
	}
	requireError(t, env.get("/reports/fees/detail?year=2026&month=3"), 1001)
	requireError(t, env.get("/reports/fees/detail?year=2026&month=3&fee_type=all"), 1003)
	requireError(t, env.get("/reports/fees/detail?year=2026&month=3&fee_type=charged&limit=0"), 1003)
}

// listOK decodes a list answered 200.
func listOK(t *testing.T, r resp) []map[string]any {
	t.Helper()
	require.Equal(t, http.StatusOK, r.status, "body %s", r.body)
	return r.arr(t)
}

func TestPayoutReport(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	fund(t, env, "", "1000")
	receipt := ids(listOK(t, env.get("/charges?limit=1")))[0]
	charge := requireOK(t, env.post("/charges", cardCharge("", "source_id", nil, "card", validCard("4111111111111111"), "amount", 500)), http.StatusOK)["id"].(string)
	refund := requireOK(t, env.post("/charges/"+charge+"/refund", map[string]any{"amount": 100}), http.StatusOK)["refund"].(map[string]any)["id"].(string)
	p1 := requireOK(t, env.post("/payouts", inlineBankPayout("amount", 300)), http.StatusOK)["id"].(string)

	later := requireOK(t, env.post("/charges", cardCharge("", "source_id", nil, "card", validCard("4111111111111111"), "amount", 200)), http.StatusOK)["id"].(string)
	cancelled := requireOK(t, env.post("/payouts", inlineBankPayout("amount", 50)), http.StatusOK)["id"].(string)
	requireOK(t, env.del("/payouts/"+cancelled), http.StatusOK)
	cu := createCustomerHTTP(t, env, "Ana", true)
	fund(t, env, cu, "50")
	fee := requireOK(t, env.post("/fees", fee(cu, "amount", 10)), http.StatusOK)["id"].(string)
	p2 := requireOK(t, env.post("/payouts", inlineBankPayout("amount", 150)), http.StatusOK)["id"].(string)
	cp := requireOK(t, env.post("/customers/"+cu+"/payouts", inlineBankPayout("amount", 20)), http.StatusOK)["id"].(string)

	summary := func(in, out float64) map[string]any {
		return map[string]any{"in": in, "out": out, "charged_adjustments": 0.0, "refunded_adjustments": 0.0}
	}
	// p1 settled the receipt and the charge (in) and the refund (out); p2
	// what came after p1 (the cancelled payout settled nothing): the
	// later charge and the fee the customer paid the merchant; the
	// customer's payout its own balance's movements.
	for _, c := range []struct {
		payout  string
		summary map[string]any
		in, out []string
	}{
		{p1, summary(1500, 100), []string{charge, receipt}, []string{refund}},
		{p2, summary(210, 0), []string{fee, later}, []string{}},
		{cp, summary(50, 10), nil, []string{fee}}, // in: checked below
	} {
		assert.Equal(t, c.summary, requireOK(t, env.get("/reports/payout/"+c.payout), http.StatusOK), c.payout)
		assert.Equal(t, c.out, ids(listOK(t, env.get("/reports/payout/"+c.payout+"/detail?detail_type=out"))), c.payout)
		if c.in != nil {
			assert.Equal(t, c.in, ids(listOK(t, env.get("/reports/payout/"+c.payout+"/detail?detail_type=in"))), c.payout)
		}
		for _, kind := range []string{"charged_adjustments", "refunded_adjustments"} {
			assert.Empty(t, listOK(t, env.get("/reports/payout/"+c.payout+"/detail?detail_type="+kind)))
		}
	}
	custIn := listOK(t, env.get("/reports/payout/"+cp+"/detail?detail_type=in"))
	require.Len(t, custIn, 1)
	assert.Equal(t, map[string]any{"transaction_type": "charge", "method": "bank_account", "customer_id": cu, "amount": 50.0},
		map[string]any{"transaction_type": custIn[0]["transaction_type"], "method": custIn[0]["method"],
			"customer_id": custIn[0]["customer_id"], "amount": custIn[0]["amount"]})
	assert.Equal(t, []string{receipt}, ids(listOK(t, env.get("/reports/payout/"+p1+"/detail?detail_type=in&offset=1&limit=1"))))

	for path, code := range map[string]int{
		"/reports/payout/trmissing":                                1005,
		"/reports/payout/" + charge:                                1005, // a charge is no payout
		"/reports/payout/trmissing/detail?detail_type=in":          1005,
		"/reports/payout/" + p1 + "/detail":                        1001,
		"/reports/payout/" + p1 + "/detail?detail_type=all":        1003,
		"/reports/payout/" + p1 + "/detail?detail_type=in&limit=0": 1003,
	} {
		requireError(t, env.get(path), code)
	}
	// Another merchant cannot read the payout.
	requireError(t, env.do(http.MethodGet, "/v1/"+env.other.ID+"/reports/payout/"+p1, env.other.PrivateKey, nil), 1005)
}
