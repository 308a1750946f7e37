package openpay_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	testMerchant = "mzdtln0bmtms6o3kck8f"
	testKey      = "sk_e568c42a6c384b7ab02cd47d2e407cab"
)

// recorded is one request as the server saw it.
type recorded struct {
	Method, Path string
	Query        url.Values
	Body         string
	Header       http.Header
}

// shapeServer answers every request with a canned status and body and
// records what it received.
type shapeServer struct {
	*httptest.Server
	mu     sync.Mutex
	reqs   []recorded
	status int
	body   string
}

func newShapeServer(t *testing.T) *shapeServer {
	s := &shapeServer{status: 200, body: `{"id":"obj1"}`}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs = append(s.reqs, recorded{r.Method, r.URL.EscapedPath(), r.URL.Query(), string(b), r.Header.Clone()})
		status, body := s.status, s.body
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if status != http.StatusNoContent {
			io.WriteString(w, body)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *shapeServer) reply(status int, body string) {
	s.mu.Lock()
	s.status, s.body = status, body
	s.mu.Unlock()
}

func (s *shapeServer) last(t *testing.T) recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	require.NotEmpty(t, s.reqs, "no request reached the server")
	return s.reqs[len(s.reqs)-1]
}

func (s *shapeServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reqs)
}

func newShapeClient(t *testing.T, srv *shapeServer, opts ...openpay.Option) *openpay.Client {
	opts = append([]openpay.Option{openpay.WithBaseURL(srv.URL), openpay.WithRetryPolicy(openpay.RetryPolicy{})}, opts...)
	c, err := openpay.New(testMerchant, testKey, opts...)
	require.NoError(t, err)
	return c
}

const txJSON = `{"id":"tr6cxbcefzatd10guvvw","amount":100.0,"method":"card","operation_type":"in",` +
	`"transaction_type":"charge","status":"completed","currency":"MXN","creation_date":"2014-05-26T11:56:25-05:00",` +
	`"description":"Cargo","order_id":"oid-1"}`

// Every service method sends the documented method, path, query and body.
func TestRequestShapes(t *testing.T) {
	srv := newShapeServer(t)
	c := newShapeClient(t, srv, openpay.WithDefaultClientIP("203.0.113.7"))
	ctx := context.Background()
	cust := c.Customer("ag4nktpdzebjiye1tlze")
	P := "/v1/" + testMerchant
	C := P + "/customers/ag4nktpdzebjiye1tlze"
	G := "/v1/groups/grp1"
	group := c.Group("grp1")
	amt := openpay.MustAmount("100.50")
	date := time.Date(2024, 3, 9, 23, 0, 0, 0, time.UTC)
	day := openpay.NewDate(2024, time.March, 9)

	tests := []struct {
		name     string
		reply    string
		status   int
		call     func() error
		method   string
		path     string
		query    string // encoded, "" for none
		body     string // JSON, "" for none
		clientIP bool
		noAuth   bool
	}{
		{name: "card charge", reply: txJSON, call: func() error {
			_, err := c.Charges.Create(ctx, openpay.CardCharge{SourceID: "kqgykn96i7bcs1wwhvgw", Amount: amt, Description: "Order 42",
				OrderID: "42", DeviceSessionID: "sid", Capture: openpay.Ptr(false), Currency: openpay.CurrencyUSD,
				PaymentPlan: &openpay.PaymentPlan{Payments: 6}, UseCardPoints: openpay.UseCardPointsMixed})
			return err
		}, method: "POST", path: P + "/charges", clientIP: true,
			body: `{"method":"card","source_id":"kqgykn96i7bcs1wwhvgw","amount":100.5,"description":"Order 42","order_id":"42",
				"device_session_id":"sid","capture":false,"currency":"USD","payment_plan":{"payments":6},"use_card_points":"MIXED"}`},
		{name: "3-D Secure charge", reply: txJSON, call: func() error {
			_, err := c.Charges.Create(ctx, openpay.CardCharge{SourceID: "k1", Amount: amt, Description: "d", Use3DSecure: true, RedirectURL: "https://shop.example/back"})
			return err
		}, method: "POST", path: P + "/charges", clientIP: true,
			body: `{"method":"card","source_id":"k1","amount":100.5,"description":"d","use_3d_secure":true,"redirect_url":"https://shop.example/back"}`},
		{name: "inline card charge at customer scope", reply: txJSON, call: func() error {
			_, err := cust.Charges.Create(ctx, openpay.InlineCardCharge{Amount: amt, Description: "d", Card: openpay.CardDetails{
				CardNumber: "4111111111111111", HolderName: "Juan", ExpirationMonth: "12", ExpirationYear: "30", CVV2: "123"}})
			return err
		}, method: "POST", path: C + "/charges", clientIP: true,
			body: `{"method":"card","amount":100.5,"description":"d","card":{"card_number":"4111111111111111","holder_name":"Juan",
				"expiration_month":"12","expiration_year":"30","cvv2":"123"}}`},
		{name: "redirect charge", reply: txJSON, call: func() error {
			_, err := c.Charges.Create(ctx, openpay.RedirectCharge{Amount: amt, Description: "d", RedirectURL: "https://shop.example/r",
				Customer: &openpay.ChargeCustomer{Name: "Juan", Email: "juan@example.com"}, SendEmail: true})
			return err
		}, method: "POST", path: P + "/charges", clientIP: true,
			body: `{"method":"card","confirm":false,"amount":100.5,"description":"d","redirect_url":"https://shop.example/r",
				"customer":{"name":"Juan","email":"juan@example.com"},"send_email":true}`},
		{name: "store charge", reply: txJSON, call: func() error {
			_, err := c.Charges.Create(ctx, openpay.StoreCharge{Amount: amt, Description: "d", DueDate: date})
			return err
		}, method: "POST", path: P + "/charges", clientIP: true,
			body: `{"method":"store","amount":100.5,"description":"d","due_date":"2024-03-09T23:00:00Z"}`},
		{name: "bank charge", reply: txJSON, call: func() error {
			_, err := cust.Charges.Create(ctx, openpay.BankCharge{Amount: amt, Description: "d", OrderID: "o-9"})
			return err
		}, method: "POST", path: C + "/charges", clientIP: true,
			body: `{"method":"bank_account","amount":100.5,"description":"d","order_id":"o-9"}`},
		{name: "alipay charge", reply: txJSON, call: func() error {
			_, err := c.Charges.Create(ctx, openpay.AlipayCharge{Amount: amt, Description: "d", RedirectURL: "https://shop.example/a"})
			return err
		}, method: "POST", path: P + "/charges", clientIP: true,
			body: `{"method":"alipay","amount":100.5,"description":"d","redirect_url":"https://shop.example/a"}`},
		{name: "IVR charge", reply: txJSON, call: func() error {
			_, err := c.Charges.Create(ctx, openpay.IVRCharge{Amount: amt, Description: "d", Metadata: openpay.Metadata{"k": "v"}})
			return err
		}, method: "POST", path: P + "/charges", clientIP: true,
			body: `{"method":"card","confirm":"ivr","amount":100.5,"description":"d","metadata":{"k":"v"}}`},
		{name: "get charge", reply: txJSON, call: func() error { _, err := c.Charges.Get(ctx, "tr1"); return err },
			method: "GET", path: P + "/charges/tr1"},
		{name: "list charges page", reply: `[` + txJSON + `]`, call: func() error {
			_, err := c.Charges.ListPage(ctx, &openpay.TransactionListParams{ListParams: openpay.ListParams{CreationGte: day, Offset: 20, Limit: 5},
				OrderID: "o 1", AmountLte: openpay.MustAmount("99.9"), Status: openpay.TransactionStatusChargePending})
			return err
		}, method: "GET", path: P + "/charges",
			query: "amount%5Blte%5D=99.9&creation%5Bgte%5D=2024-03-09&limit=5&offset=20&order_id=o+1&status=CHARGE_PENDING"},
		{name: "capture partial", reply: txJSON, call: func() error {
			_, err := c.Charges.Capture(ctx, "tr1", openpay.CaptureRequest{Amount: openpay.MustAmount("50")})
			return err
		}, method: "POST", path: P + "/charges/tr1/capture", body: `{"amount":50}`},
		{name: "capture whole", reply: txJSON, call: func() error {
			_, err := cust.Charges.Capture(ctx, "tr1", openpay.CaptureRequest{})
			return err
		}, method: "POST", path: C + "/charges/tr1/capture", body: `{}`},
		{name: "refund", reply: txJSON, call: func() error {
			_, err := c.Charges.Refund(ctx, "tr1", openpay.RefundRequest{Description: "devolucion", Amount: openpay.MustAmount("10")})
			return err
		}, method: "POST", path: P + "/charges/tr1/refund", body: `{"description":"devolucion","amount":10}`},
		{name: "cancel charge", reply: txJSON, call: func() error { _, err := cust.Charges.Cancel(ctx, "tr1"); return err },
			method: "POST", path: C + "/charges/tr1/cancel"},
		{name: "payout to bank account id", reply: txJSON, call: func() error {
			_, err := c.Payouts.Create(ctx, openpay.BankAccountPayout{DestinationID: "b1", Amount: amt, Description: "d", OrderID: "p-1"})
			return err
		}, method: "POST", path: P + "/payouts",
			body: `{"method":"bank_account","destination_id":"b1","amount":100.5,"description":"d","order_id":"p-1"}`},
		{name: "payout to inline bank account", reply: txJSON, call: func() error {
			_, err := cust.Payouts.Create(ctx, openpay.InlineBankAccountPayout{BankAccount: openpay.BankAccountRequest{CLABE: "012298026516924616", HolderName: "Mi empresa"}, Amount: amt, Description: "d"})
			return err
		}, method: "POST", path: C + "/payouts",
			body: `{"method":"bank_account","bank_account":{"clabe":"012298026516924616","holder_name":"Mi empresa"},"amount":100.5,"description":"d"}`},
		{name: "payout to card id", reply: txJSON, call: func() error {
			_, err := c.Payouts.Create(ctx, openpay.CardPayout{DestinationID: "k1", Amount: amt, Description: "d"})
			return err
		}, method: "POST", path: P + "/payouts", body: `{"method":"card","destination_id":"k1","amount":100.5,"description":"d"}`},
		{name: "payout to inline card", reply: txJSON, call: func() error {
			_, err := c.Payouts.Create(ctx, openpay.InlineCardPayout{Card: openpay.PayoutCardDetails{CardNumber: "4111111111111111", HolderName: "Juan", BankCode: "002"}, Amount: amt, Description: "d"})
			return err
		}, method: "POST", path: P + "/payouts",
			body: `{"method":"card","card":{"card_number":"4111111111111111","holder_name":"Juan","bank_code":"002"},"amount":100.5,"description":"d"}`},
		{name: "get payout", reply: txJSON, call: func() error { _, err := cust.Payouts.Get(ctx, "tr2"); return err },
			method: "GET", path: C + "/payouts/tr2"},
		{name: "cancel payout", reply: txJSON, call: func() error { _, err := c.Payouts.Cancel(ctx, "tr2"); return err },
			method: "DELETE", path: P + "/payouts/tr2"},
		{name: "list payouts", reply: `[]`, call: func() error {
			_, err := c.Payouts.ListPage(ctx, &openpay.PayoutListParams{PayoutType: "AUTOMATIC"})
			return err
		}, method: "GET", path: P + "/payouts", query: "payout_type=AUTOMATIC"},
		{name: "transfer", reply: txJSON, call: func() error {
			_, err := cust.Transfers.Create(ctx, openpay.TransferRequest{CustomerID: "a9pvykxz4g5rg0fplze0", Amount: amt, Description: "rent", OrderID: "t-1"})
			return err
		}, method: "POST", path: C + "/transfers",
			body: `{"customer_id":"a9pvykxz4g5rg0fplze0","amount":100.5,"description":"rent","order_id":"t-1"}`},
		{name: "get transfer", reply: txJSON, call: func() error { _, err := cust.Transfers.Get(ctx, "tr3"); return err },
			method: "GET", path: C + "/transfers/tr3"},
		{name: "list transfers", reply: `[]`, call: func() error { _, err := cust.Transfers.ListPage(ctx, nil); return err },
			method: "GET", path: C + "/transfers"},
		{name: "fee", reply: txJSON, call: func() error {
			_, err := c.Fees.Create(ctx, openpay.FeeRequest{CustomerID: "dvocf97jd20es3tw5laz", Amount: openpay.MustAmount("12.50"), Description: "Cobro de comision"})
			return err
		}, method: "POST", path: P + "/fees", body: `{"customer_id":"dvocf97jd20es3tw5laz","amount":12.5,"description":"Cobro de comision"}`},
		{name: "get fee", reply: txJSON, call: func() error { _, err := c.Fees.Get(ctx, "th1"); return err }, method: "GET", path: P + "/fees/th1"},
		{name: "refund fee", reply: txJSON, call: func() error {
			_, err := c.Fees.Refund(ctx, "th1", openpay.FeeRefundRequest{Description: "fee refund"})
			return err
		}, method: "POST", path: P + "/fees/th1/refund", body: `{"description":"fee refund"}`},
		{name: "list fees", reply: `[]`, call: func() error { _, err := c.Fees.ListPage(ctx, nil); return err }, method: "GET", path: P + "/fees"},
		{name: "card from data", reply: `{"id":"k1"}`, call: func() error {
			_, err := cust.Cards.Create(ctx, openpay.CardRequest{Card: openpay.CardDetails{CardNumber: "4111111111111111", HolderName: "Juan", ExpirationMonth: "12", ExpirationYear: "30", CVV2: "123"}, DeviceSessionID: "s"})
			return err
		}, method: "POST", path: C + "/cards",
			body: `{"card_number":"4111111111111111","holder_name":"Juan","expiration_month":"12","expiration_year":"30","cvv2":"123","device_session_id":"s"}`},
		{name: "card from token", reply: `{"id":"k1"}`, call: func() error {
			_, err := c.Cards.CreateFromToken(ctx, openpay.TokenCardRequest{TokenID: "tok1", DeviceSessionID: "s"})
			return err
		}, method: "POST", path: P + "/cards", body: `{"token_id":"tok1","device_session_id":"s"}`},
		{name: "get card", reply: `{"id":"k1"}`, call: func() error { _, err := cust.Cards.Get(ctx, "k1"); return err }, method: "GET", path: C + "/cards/k1"},
		{name: "update card", reply: `{}`, call: func() error {
			return c.Cards.Update(ctx, "k1", openpay.CardUpdateRequest{HolderName: "Juan P", CVV2: "321"})
		}, method: "PUT", path: P + "/cards/k1", body: `{"holder_name":"Juan P","cvv2":"321"}`},
		{name: "delete card", status: 204, call: func() error { return cust.Cards.Delete(ctx, "k1") }, method: "DELETE", path: C + "/cards/k1"},
		{name: "list cards", reply: `[]`, call: func() error { _, err := c.Cards.ListPage(ctx, &openpay.ListParams{Limit: 100}); return err },
			method: "GET", path: P + "/cards", query: "limit=100"},
		{name: "card points", reply: `[{"points_type":"santander","remaining_points":"300","remaining_mxn":"22.5"}]`,
			call: func() error { _, err := cust.Cards.Points(ctx, "k1"); return err }, method: "GET", path: C + "/cards/k1/points"},
		{name: "bank account", reply: `{"id":"b1"}`, call: func() error {
			_, err := cust.BankAccounts.Create(ctx, openpay.BankAccountRequest{CLABE: "032180000118359719", HolderName: "Juan", Alias: "main"})
			return err
		}, method: "POST", path: C + "/bankaccounts", body: `{"clabe":"032180000118359719","holder_name":"Juan","alias":"main"}`},
		{name: "get bank account", reply: `{"id":"b1"}`, call: func() error { _, err := cust.BankAccounts.Get(ctx, "b1"); return err },
			method: "GET", path: C + "/bankaccounts/b1"},
		{name: "delete bank account", status: 204, call: func() error { return cust.BankAccounts.Delete(ctx, "b1") },
			method: "DELETE", path: C + "/bankaccounts/b1"},
		{name: "list bank accounts", reply: `[]`, call: func() error { _, err := cust.BankAccounts.ListPage(ctx, nil); return err },
			method: "GET", path: C + "/bankaccounts"},
		{name: "customer", reply: `{"id":"a1"}`, call: func() error {
			_, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "customer name", Email: "c@example.com", ExternalID: "ext-1", RequiresAccount: true})
			return err
		}, method: "POST", path: P + "/customers", body: `{"name":"customer name","email":"c@example.com","external_id":"ext-1","requires_account":true}`},
		{name: "update customer", reply: `{"id":"a1"}`, call: func() error {
			_, err := c.Customers.Update(ctx, "a1", openpay.CustomerUpdateRequest{Name: "n", Email: "c@example.com", PhoneNumber: "44209087654"})
			return err
		}, method: "PUT", path: P + "/customers/a1", body: `{"name":"n","email":"c@example.com","phone_number":"44209087654"}`},
		{name: "get customer", reply: `{"id":"a1"}`, call: func() error { _, err := c.Customers.Get(ctx, "a1"); return err }, method: "GET", path: P + "/customers/a1"},
		{name: "delete customer", status: 204, call: func() error { return c.Customers.Delete(ctx, "a1") }, method: "DELETE", path: P + "/customers/a1"},
		{name: "list customers", reply: `[]`, call: func() error {
			_, err := c.Customers.ListPage(ctx, &openpay.CustomerListParams{ExternalID: "ext-1", ListParams: openpay.ListParams{Creation: day}})
			return err
		}, method: "GET", path: P + "/customers", query: "creation=2024-03-09&external_id=ext-1"},
		{name: "plan", reply: `{"id":"p1"}`, call: func() error {
			_, err := c.Plans.Create(ctx, openpay.PlanRequest{Name: "Curso", Amount: openpay.MustAmount("150"), RepeatEvery: 1, RepeatUnit: openpay.RepeatUnitMonth,
				RetryTimes: 2, StatusAfterRetry: openpay.StatusAfterRetryCancelled, TrialDays: 30})
			return err
		}, method: "POST", path: P + "/plans",
			body: `{"name":"Curso","amount":150,"repeat_every":1,"repeat_unit":"month","retry_times":2,"status_after_retry":"cancelled","trial_days":30}`},
		{name: "update plan", reply: `{"id":"p1"}`, call: func() error {
			_, err := c.Plans.Update(ctx, "p1", openpay.PlanUpdateRequest{TrialDays: openpay.Ptr(0)})
			return err
		}, method: "PUT", path: P + "/plans/p1", body: `{"trial_days":0}`},
		{name: "get plan", reply: `{"id":"p1"}`, call: func() error { _, err := c.Plans.Get(ctx, "p1"); return err }, method: "GET", path: P + "/plans/p1"},
		{name: "delete plan", status: 204, call: func() error { return c.Plans.Delete(ctx, "p1") }, method: "DELETE", path: P + "/plans/p1"},
		{name: "list plans", reply: `[]`, call: func() error { _, err := c.Plans.ListPage(ctx, nil); return err }, method: "GET", path: P + "/plans"},
		{name: "plan subscriptions", reply: `[]`, call: func() error { _, err := c.Plans.SubscriptionsPage(ctx, "p1", nil); return err },
			method: "GET", path: P + "/plans/p1/subscriptions"},
		{name: "subscription", reply: `{"id":"s1"}`, call: func() error {
			_, err := cust.Subscriptions.Create(ctx, openpay.SubscriptionRequest{PlanID: "p1", SourceID: "k1"})
			return err
		}, method: "POST", path: C + "/subscriptions", body: `{"plan_id":"p1","source_id":"k1"}`},
		{name: "update subscription", reply: `{"id":"s1"}`, call: func() error {
			_, err := cust.Subscriptions.Update(ctx, "s1", openpay.SubscriptionUpdateRequest{CancelAtPeriodEnd: openpay.Ptr(true)})
			return err
		}, method: "PUT", path: C + "/subscriptions/s1", body: `{"cancel_at_period_end":true}`},
		{name: "get subscription", reply: `{"id":"s1"}`, call: func() error { _, err := cust.Subscriptions.Get(ctx, "s1"); return err },
			method: "GET", path: C + "/subscriptions/s1"},
		{name: "delete subscription", status: 204, call: func() error { return cust.Subscriptions.Cancel(ctx, "s1") },
			method: "DELETE", path: C + "/subscriptions/s1"},
		{name: "list subscriptions", reply: `[]`, call: func() error { _, err := cust.Subscriptions.ListPage(ctx, nil); return err },
			method: "GET", path: C + "/subscriptions"},
		{name: "token", reply: `{"id":"tok1"}`, call: func() error {
			_, err := c.Tokens.Create(ctx, openpay.CardDetails{CardNumber: "4111111111111111", HolderName: "Juan", ExpirationMonth: "12", ExpirationYear: "30", CVV2: "123"})
			return err
		}, method: "POST", path: P + "/tokens",
			body: `{"card_number":"4111111111111111","holder_name":"Juan","expiration_month":"12","expiration_year":"30","cvv2":"123"}`},
		{name: "get token", reply: `{"id":"tok1"}`, call: func() error { _, err := c.Tokens.Get(ctx, "tok1"); return err }, method: "GET", path: P + "/tokens/tok1"},
		{name: "token points", reply: `[]`, call: func() error { _, err := c.Tokens.Points(ctx, "tok1"); return err }, method: "GET", path: P + "/tokens/tok1/points"},
		{name: "list tokens", reply: `[]`, call: func() error {
			_, err := c.Tokens.ListPage(ctx, &openpay.ListParams{CreationGte: day, Limit: 5})
			return err
		}, method: "GET", path: P + "/tokens", query: "creation%5Bgte%5D=2024-03-09&limit=5"},
		{name: "fees report", reply: `{"charged":1.5,"total":1.5}`, call: func() error { _, err := c.Reports.Fees(ctx, 2024, time.March); return err },
			method: "GET", path: P + "/reports/fees", query: "month=3&year=2024"},
		{name: "fees report detail", reply: `[]`, call: func() error {
			_, err := c.Reports.FeeDetailsPage(ctx, 2024, time.December, openpay.FeeReportTypeChargedAdjustments, &openpay.PageParams{Offset: 20, Limit: 10})
			return err
		}, method: "GET", path: P + "/reports/fees/detail", query: "fee_type=charged_adjustments&limit=10&month=12&offset=20&year=2024"},
		{name: "payout report", reply: `{"in":2700,"out":2400}`, call: func() error { _, err := c.Reports.Payout(ctx, "tr1"); return err },
			method: "GET", path: P + "/reports/payout/tr1"},
		{name: "payout report detail", reply: `[]`, call: func() error {
			_, err := c.Reports.PayoutDetailsPage(ctx, "tr1", openpay.PayoutReportTypeIn, nil)
			return err
		}, method: "GET", path: P + "/reports/payout/tr1/detail", query: "detail_type=in"},
		{name: "merchant", reply: `{"id":"m1"}`, call: func() error { _, err := c.Merchant.Get(ctx); return err }, method: "GET", path: P},
		{name: "stores", reply: `[]`, call: func() error {
			_, err := c.Stores.Search(ctx, openpay.StoreSearch{Latitude: 20.618171, Longitude: -100.421865, Kilometers: 5, Amount: openpay.MustAmount("100")})
			return err
		}, method: "GET", path: "/stores", query: "amount=100&kilometers=5&latitud=20.618171&longitud=-100.421865", noAuth: true},
		{name: "webhook", reply: `{"id":"w1"}`, call: func() error {
			_, err := c.Webhooks.Create(ctx, openpay.WebhookRequest{URL: "https://shop.example/hook", User: "juanito", Password: "passjuanito",
				EventTypes: []openpay.EventType{openpay.EventTypeChargeSucceeded}})
			return err
		}, method: "POST", path: P + "/webhooks",
			body: `{"url":"https://shop.example/hook","user":"juanito","password":"passjuanito","event_types":["charge.succeeded"]}`},
		{name: "get webhook", reply: `{"id":"w1"}`, call: func() error { _, err := c.Webhooks.Get(ctx, "w1"); return err }, method: "GET", path: P + "/webhooks/w1"},
		{name: "list webhooks", reply: `[]`, call: func() error { _, err := c.Webhooks.List(ctx); return err }, method: "GET", path: P + "/webhooks"},
		{name: "delete webhook", status: 204, call: func() error { return c.Webhooks.Delete(ctx, "w1") }, method: "DELETE", path: P + "/webhooks/w1"},
		{name: "verify webhook", status: 204, call: func() error { return c.Webhooks.Verify(ctx, "w1", "Ab3dEf9h") },
			method: "POST", path: P + "/webhooks/w1/verify/Ab3dEf9h"},
		{name: "group customer", reply: `{"id":"a1"}`, call: func() error {
			_, err := group.Customers.Create(ctx, openpay.CustomerRequest{Name: "n", Email: "e@example.com"})
			return err
		}, method: "POST", path: G + "/customers", body: `{"name":"n","email":"e@example.com"}`},
		{name: "group customer card", reply: `{"id":"k1"}`, call: func() error { _, err := group.Customer("a1").Cards.Get(ctx, "k1"); return err },
			method: "GET", path: G + "/customers/a1/cards/k1"},
		{name: "group merchant charge", reply: txJSON, call: func() error {
			_, err := group.Merchant("m2").Charges.Create(ctx, openpay.CardCharge{SourceID: "k1", Amount: amt, Description: "d"})
			return err
		}, method: "POST", path: G + "/merchants/m2/charges", clientIP: true, body: `{"method":"card","source_id":"k1","amount":100.5,"description":"d"}`},
		{name: "group merchant refund", reply: txJSON, call: func() error {
			_, err := group.Merchant("m2").Customer("a1").Charges.Refund(ctx, "tr1", openpay.RefundRequest{})
			return err
		}, method: "POST", path: G + "/merchants/m2/customers/a1/charges/tr1/refund", body: `{}`},
		{name: "group merchant subscriptions", reply: `[]`, call: func() error {
			_, err := group.Merchant("m2").Customer("a1").Subscriptions.ListPage(ctx, nil)
			return err
		}, method: "GET", path: G + "/merchants/m2/customers/a1/subscriptions"},
		{name: "checkout", reply: `{"id":"c1"}`, call: func() error {
			_, err := c.Checkouts.Create(ctx, openpay.CheckoutRequest{Amount: amt, Description: "Link", OrderID: "o-7",
				RedirectURL: "https://shop.example/paid", ExpirationDate: time.Date(2027, 1, 1, 5, 59, 30, 0, time.UTC), SendEmail: openpay.Ptr(false), // 23:59 in Mexico City
				Customer: &openpay.ChargeCustomer{Name: "Ana", Email: "ana@example.com"}, IVA: openpay.MustAmount("16")})
			return err
		}, method: "POST", path: P + "/checkouts",
			body: `{"amount":100.5,"description":"Link","order_id":"o-7","redirect_url":"https://shop.example/paid",
				"expiration_date":"2026-12-31 23:59","send_email":false,"customer":{"name":"Ana","email":"ana@example.com"},"iva":"16"}`},
		{name: "customer checkout", reply: `{"id":"c1"}`, call: func() error {
			_, err := cust.Checkouts.Create(ctx, openpay.CheckoutRequest{Amount: amt, Description: "Link"})
			return err
		}, method: "POST", path: C + "/checkouts", body: `{"amount":100.5,"description":"Link"}`},
		{name: "get checkout", reply: `{"id":"c1","creation_date":"2021-10-15T23:36:00.000-0500"}`, call: func() error {
			co, err := cust.Checkouts.Get(ctx, "c1")
			if err == nil && !co.CreationDate.Equal(time.Date(2021, 10, 16, 4, 36, 0, 0, time.UTC)) {
				return errors.New("creation_date read as " + co.CreationDate.String())
			}
			return err
		}, method: "GET", path: C + "/checkouts/c1"},
		{name: "update checkout at the merchant path from a customer's scope", reply: `{"id":"c1"}`, call: func() error {
			_, err := cust.Checkouts.Update(ctx, "c1", openpay.CheckoutUpdateRequest{Status: openpay.CheckoutStatusAvailable,
				ExpirationDate: time.Date(2026, 12, 31, 23, 59, 0, 0, openpay.CountryMexico.Location())})
			return err
		}, method: "PUT", path: P + "/checkouts/c1", query: "status=available", body: `{"expiration_date":"2026-12-31 23:59"}`},
		{name: "update checkout keeping its status", reply: `{"id":"c1"}`, call: func() error {
			_, err := c.Checkouts.Update(ctx, "c1", openpay.CheckoutUpdateRequest{})
			return err
		}, method: "PUT", path: P + "/checkouts/c1", body: `{}`},
		{name: "list checkouts", reply: `[]`, call: func() error {
			_, err := c.Checkouts.ListPage(ctx, &openpay.CheckoutListParams{ListParams: openpay.ListParams{Limit: 5, Offset: 10},
				StartDate: day, EndDate: day.AddDays(2)})
			return err
		}, method: "GET", path: P + "/checkouts", query: "endDate=20240311&limit=5&offset=10&startDate=20240309"},
		{name: "list customer checkouts", reply: `[]`, call: func() error {
			_, err := cust.Checkouts.ListPage(ctx, nil)
			return err
		}, method: "GET", path: C + "/checkouts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status := tt.status
			if status == 0 {
				status = 200
			}
			srv.reply(status, tt.reply)
			require.NoError(t, tt.call())
			got := srv.last(t)
			assert.Equal(t, tt.method, got.Method)
			assert.Equal(t, tt.path, got.Path)
			assert.Equal(t, tt.query, got.Query.Encode())
			if tt.body == "" {
				assert.Empty(t, got.Body)
			} else {
				assert.JSONEq(t, tt.body, got.Body)
			}
			if tt.clientIP {
				assert.Equal(t, "203.0.113.7", got.Header.Get("X-Forwarded-For"))
			} else {
				assert.Empty(t, got.Header.Get("X-Forwarded-For"), "only charge creation sends the payer's IP")
			}
			if tt.noAuth {
				assert.Empty(t, got.Header.Get("Authorization"), "the key is not sent where it is not needed")
			} else {
				user, pass, ok := (&http.Request{Header: got.Header}).BasicAuth()
				assert.True(t, ok)
				assert.Equal(t, testKey, user)
				assert.Empty(t, pass)
			}
			assert.Equal(t, "application/json", got.Header.Get("Content-Type"))
		})
	}
}

// Calls never write into the caller's request values.
func TestRequestsAreNotMutated(t *testing.T) {
	srv := newShapeServer(t)
	srv.reply(200, txJSON)
	c := newShapeClient(t, srv)
	req := openpay.RedirectCharge{Amount: openpay.MustAmount("10"), Description: "d", RedirectURL: "https://x.example"}
	before := req
	_, err := c.Charges.Create(context.Background(), req, openpay.WithClientIP("2001:db8::1"))
	require.NoError(t, err)
	assert.Equal(t, before, req)
	assert.Equal(t, "2001:db8::1", srv.last(t).Header.Get("X-Forwarded-For"))

	params := &openpay.TransactionListParams{Status: openpay.TransactionStatusCompleted}
	srv.reply(200, `[]`)
	for _, err := range c.Charges.List(context.Background(), params) {
		require.NoError(t, err)
	}
	assert.Equal(t, &openpay.TransactionListParams{Status: openpay.TransactionStatusCompleted}, params)
}

// Ids that could change the addressed resource are refused before sending.
func TestPathIDsAreChecked(t *testing.T) {
	srv := newShapeServer(t)
	c := newShapeClient(t, srv)
	ctx := context.Background()
	for _, id := range []string{"", "..", ".", "a/b", "a?b=c", "a#b", "a%2Fb", "a\\b", "a\nb", "4111111111111111111111111111111111111111111111"} {
		_, err := c.Charges.Get(ctx, id)
		require.Error(t, err, "%q", id)
		assert.NotContains(t, err.Error(), "41111111111", "the id is not echoed")
		_, err = c.Customer(id).Charges.Get(ctx, "tr1")
		require.Error(t, err, "customer %q", id)
	}
	assert.Zero(t, srv.count(), "nothing was sent")
	_, err := c.Charges.Get(ctx, "tr-_.~ok")
	require.NoError(t, err)
	assert.Equal(t, "/v1/"+testMerchant+"/charges/tr-_.~ok", srv.last(t).Path)
}

// A day that does not exist is refused before sending, never sent as
// another day.
func TestInvalidDateIsNotSent(t *testing.T) {
	t.Parallel()
	srv := newShapeServer(t)
	c := newShapeClient(t, srv)
	subs := c.Customer("cu1").Subscriptions
	_, err := subs.Create(context.Background(), openpay.SubscriptionRequest{PlanID: "p1", SourceID: "k1",
		TrialEndDate: openpay.Date{Year: 2026, Month: time.February, Day: 30}})
	assert.ErrorIs(t, err, openpay.ErrInvalidDate)
	_, err = subs.Update(context.Background(), "s1", openpay.SubscriptionUpdateRequest{TrialEndDate: openpay.Date{Year: 2026, Day: 1}})
	assert.ErrorIs(t, err, openpay.ErrInvalidDate)
	// The day filters of lists too, on the one-page call and the iterator.
	feb30 := openpay.Date{Year: 2026, Month: time.February, Day: 30}
	_, err = c.Charges.ListPage(context.Background(), &openpay.TransactionListParams{ListParams: openpay.ListParams{CreationLte: feb30}})
	assert.ErrorIs(t, err, openpay.ErrInvalidDate)
	var errs []error
	for _, err := range c.Customers.List(context.Background(), &openpay.CustomerListParams{ListParams: openpay.ListParams{Creation: feb30}}) {
		errs = append(errs, err)
	}
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], openpay.ErrInvalidDate)
	_, err = c.Checkouts.ListPage(context.Background(), &openpay.CheckoutListParams{EndDate: feb30})
	assert.ErrorIs(t, err, openpay.ErrInvalidDate)
	assert.Zero(t, srv.count(), "nothing was sent")
}

// The iterator fetches nothing until ranged, pages with offset/limit, stops
// on a short page and yields an error once.
func TestListIterator(t *testing.T) {
	var mu sync.Mutex
	var queries []url.Values
	total := 23
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		queries = append(queries, r.URL.Query())
		mu.Unlock()
		q := r.URL.Query()
		if q.Get("status") == "FAILED" {
			w.WriteHeader(500)
			io.WriteString(w, `{"category":"internal","error_code":1001,"description":"boom","http_code":500}`)
			return
		}
		offset, limit := atoi(q.Get("offset")), atoi(q.Get("limit"))
		var page []map[string]any
		for i := offset; i < min(offset+limit, total); i++ {
			page = append(page, map[string]any{"id": "tr" + itoa(i), "amount": 1, "status": "completed"})
		}
		if page == nil {
			page = []map[string]any{}
		}
		json.NewEncoder(w).Encode(page)
	}))
	t.Cleanup(srv.Close)
	c, err := openpay.New(testMerchant, testKey, openpay.WithBaseURL(srv.URL), openpay.WithRetryPolicy(openpay.RetryPolicy{}))
	require.NoError(t, err)
	ctx := context.Background()

	params := &openpay.TransactionListParams{ListParams: openpay.ListParams{Limit: 10, Offset: 1}}
	seq := c.Charges.List(ctx, params)
	params.Offset = 99 // changing the params after the call has no effect
	mu.Lock()
	assert.Empty(t, queries, "nothing fetched before ranging")
	mu.Unlock()

	var ids []string
	for tx, err := range seq {
		require.NoError(t, err)
		ids = append(ids, tx.ID)
	}
	require.Len(t, ids, 22)
	assert.Equal(t, "tr1", ids[0])
	assert.Equal(t, "tr22", ids[21])
	mu.Lock()
	require.Len(t, queries, 3, "pages of 10 from offset 1: 10, 10, 2 (short: stop)")
	assert.Equal(t, []string{"1", "11", "21"}, []string{queries[0].Get("offset"), queries[1].Get("offset"), queries[2].Get("offset")})
	queries = nil
	mu.Unlock()

	// Breaking out early stops fetching.
	n := 0
	for range c.Charges.List(ctx, nil) {
		n++
		if n == 3 {
			break
		}
	}
	mu.Lock()
	assert.Len(t, queries, 1)
	assert.Equal(t, "100", queries[0].Get("limit"), "iteration defaults to full pages")
	mu.Unlock()

	// A failure is yielded once, then the iteration ends.
	var errs []error
	for tx, err := range c.Charges.List(ctx, &openpay.TransactionListParams{Status: openpay.TransactionStatusFailed}) {
		assert.Nil(t, tx)
		errs = append(errs, err)
	}
	require.Len(t, errs, 1)
	assert.True(t, errors.Is(errs[0], openpay.ErrBadRequest))

	// Invalid params are yielded as an error without a request.
	mu.Lock()
	queries = nil
	mu.Unlock()
	for _, err := range c.Charges.List(ctx, &openpay.TransactionListParams{ListParams: openpay.ListParams{Limit: 101}}) {
		require.Error(t, err)
	}
	mu.Lock()
	assert.Empty(t, queries)
	mu.Unlock()
}

func atoi(s string) int {
	n := 0
	for _, r := range s {
		n = n*10 + int(r-'0')
	}
	return n
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
