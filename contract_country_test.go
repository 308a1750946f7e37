package openpay_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Contract tests in Colombia and Peru: every operation the SDK has that
// exists in the country, through the SDK against a reference server whose
// merchant is of that country, and the gateway's answer to those that do
// not exist there.

func newCountryContract(t *testing.T, c openpay.Country) *contract {
	t.Helper()
	srv := openpaytest.NewServer(t, openpaytest.WithCountry(c))
	require.Equal(t, c, srv.Country)
	cl, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithCountry(c), openpay.WithBaseURL(srv.URL),
		openpay.WithDefaultClientIP("198.51.100.4"))
	require.NoError(t, err)
	pub, err := openpay.New(srv.MerchantID, srv.PublicKey, openpay.WithCountry(c), openpay.WithBaseURL(srv.URL))
	require.NoError(t, err)
	return &contract{srv: srv, c: cl, public: pub}
}

func TestContractCountryOperations(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		country  openpay.Country
		currency openpay.Currency
		customer openpay.CustomerRequest
		amount   string
		near     openpay.StoreSearch
	}{
		{openpay.CountryColombia, openpay.CurrencyCOP, openpay.CustomerRequest{Name: "Juan", LastName: "Pérez", Email: "juan@example.co",
			PhoneNumber: "3001234567", CustomerAddress: &openpay.ColombianAddress{Department: "Cundinamarca", City: "Bogotá", Additional: "Carrera 7 # 72-41"}},
			"25000", openpay.StoreSearch{Latitude: 4.65, Longitude: -74.06, Kilometers: 10, Amount: openpay.MustAmount("25000")}},
		{openpay.CountryPeru, openpay.CurrencyPEN, openpay.CustomerRequest{Name: "Marco", LastName: "Morales", Email: "marco@example.pe",
			Address: &openpay.Address{Line1: "Av. Arequipa 1200", PostalCode: "15046", State: "Lima", City: "Lima", CountryCode: "PE"}},
			"150.50", openpay.StoreSearch{Latitude: -12.1, Longitude: -77.03, Kilometers: 10, Amount: openpay.MustAmount("150.50")}},
	} {
		t.Run(string(tc.country), func(t *testing.T) {
			t.Parallel()
			k := newCountryContract(t, tc.country)
			ctx := context.Background()
			amount := openpay.MustAmount(tc.amount)

			m, err := k.c.Merchant.Get(ctx)
			require.NoError(t, err)
			assert.Empty(t, m.CLABE, "no CLABE outside Mexico")

			// Customers keep the country's address shape.
			cu, err := k.c.Customers.Create(ctx, tc.customer)
			require.NoError(t, err)
			assert.Equal(t, tc.customer.CustomerAddress, cu.CustomerAddress)
			if tc.customer.Address != nil {
				assert.Equal(t, tc.customer.Address.Line1, cu.Address.Line1)
			}
			upd := openpay.CustomerUpdateRequest{Name: cu.Name + " B", Email: cu.Email, CustomerAddress: tc.customer.CustomerAddress, Address: tc.customer.Address}
			cu2, err := k.c.Customers.Update(ctx, cu.ID, upd)
			require.NoError(t, err)
			assert.Equal(t, upd.Name, cu2.Name)
			got, err := k.c.Customers.Get(ctx, cu.ID)
			require.NoError(t, err)
			assert.Equal(t, tc.customer.CustomerAddress, got.CustomerAddress)
			list, err := k.c.Customers.ListPage(ctx, nil)
			require.NoError(t, err)
			assert.Len(t, list, 1)

			// Cards and tokens, a card charge in the own currency (with iva in
			// Colombia), in dollars, a refund, a pre-authorization.
			tok, err := k.public.Tokens.Create(ctx, openpay.CardDetails{HolderName: "Juan", CardNumber: openpaytest.CardVisa,
				CVV2: openpaytest.CVV(openpaytest.CardVisa), ExpirationMonth: "12", ExpirationYear: futureYear()})
			require.NoError(t, err)
			_, err = k.c.Tokens.Get(ctx, tok.ID)
			require.NoError(t, err)
			card, err := k.c.Customer(cu.ID).Cards.CreateFromToken(ctx, openpay.TokenCardRequest{TokenID: tok.ID, DeviceSessionID: "kR1MiQhz2otdIuUlQkbEyitIqVMiI16f"})
			require.NoError(t, err)
			cards, err := k.c.Customer(cu.ID).Cards.ListPage(ctx, nil)
			require.NoError(t, err)
			assert.Len(t, cards, 1)
			var iva openpay.Amount
			if tc.country == openpay.CountryColombia {
				iva = openpay.MustAmount("1900")
			}
			ch, err := k.c.Customer(cu.ID).Charges.Create(ctx, openpay.CardCharge{SourceID: card.ID, Amount: amount, Description: "Pedido 1",
				OrderID: "o-1", IVA: iva})
			require.NoError(t, err)
			assert.Equal(t, openpay.TransactionStatusCompleted, ch.Status)
			assert.Equal(t, tc.currency, ch.Currency)
			usd, err := k.c.Charges.Create(ctx, openpay.InlineCardCharge{Card: inlineCard(openpaytest.CardMastercard), Amount: openpay.MustAmount("20"),
				Currency: openpay.CurrencyUSD, Description: "Dollars"})
			require.NoError(t, err)
			require.NotNil(t, usd.ExchangeRate)
			assert.Equal(t, tc.currency, usd.ExchangeRate.To)
			ref, err := k.c.Charges.Refund(ctx, ch.ID, openpay.RefundRequest{Description: "Devolución"})
			require.NoError(t, err)
			assert.Equal(t, openpay.TransactionStatusRefunded, ref.Status)
			pre, err := k.c.Charges.Create(ctx, openpay.InlineCardCharge{Card: inlineCard(openpaytest.CardVisa), Amount: amount,
				Description: "Reserva", Capture: openpay.Ptr(false)})
			require.NoError(t, err)
			_, err = k.c.Charges.Capture(ctx, pre.ID, openpay.CaptureRequest{})
			require.NoError(t, err)
			_, err = k.c.Charges.Update(ctx, pre.ID, openpay.ChargeUpdateRequest{Description: "Reserva cobrada"})
			require.NoError(t, err)

			// A store charge in the own currency.
			st, err := k.c.Charges.Create(ctx, openpay.StoreCharge{Amount: amount, Currency: tc.currency, IVA: iva, Description: "En tienda"})
			require.NoError(t, err)
			assert.Equal(t, openpay.TransactionStatusInProgress, st.Status)
			assert.Equal(t, tc.currency, st.Currency)
			paid, err := k.srv.PayCharge(st.ID)
			require.NoError(t, err)
			assert.Equal(t, openpay.TransactionStatusCompleted, paid.Status)
			stores, err := k.c.Stores.Search(ctx, tc.near)
			require.NoError(t, err)
			require.NotEmpty(t, stores)
			for _, s := range stores {
				assert.Equal(t, string(tc.country), s.Address.CountryCode)
			}

			charges, err := k.c.Charges.ListPage(ctx, &openpay.TransactionListParams{ListParams: openpay.ListParams{Limit: 100}})
			require.NoError(t, err)
			assert.Len(t, charges, 4)

			// Plans and subscriptions, webhooks.
			plan, err := k.c.Plans.Create(ctx, openpay.PlanRequest{Name: "Mensual", Amount: amount, RepeatEvery: 1, RepeatUnit: openpay.RepeatUnitMonth,
				StatusAfterRetry: openpay.StatusAfterRetryCancelled})
			require.NoError(t, err)
			assert.Equal(t, tc.currency, plan.Currency)
			_, err = k.c.Plans.Get(ctx, plan.ID)
			require.NoError(t, err)
			_, err = k.c.Plans.Update(ctx, plan.ID, openpay.PlanUpdateRequest{Name: "Mensual B"})
			require.NoError(t, err)
			plans, err := k.c.Plans.ListPage(ctx, nil)
			require.NoError(t, err)
			assert.Len(t, plans, 1)
			subs := k.c.Customer(cu.ID).Subscriptions
			sub, err := subs.Create(ctx, openpay.SubscriptionRequest{PlanID: plan.ID, SourceID: card.ID})
			require.NoError(t, err)
			_, err = subs.Update(ctx, sub.ID, openpay.SubscriptionUpdateRequest{CancelAtPeriodEnd: openpay.Ptr(true)})
			require.NoError(t, err)
			_, err = subs.Get(ctx, sub.ID)
			require.NoError(t, err)
			subList, err := k.c.Plans.SubscriptionsPage(ctx, plan.ID, nil)
			require.NoError(t, err)
			assert.Len(t, subList, 1)
			require.NoError(t, subs.Cancel(ctx, sub.ID))
			require.NoError(t, k.c.Plans.Delete(ctx, plan.ID))
			hook, err := k.c.Webhooks.Create(ctx, openpay.WebhookRequest{URL: "http://127.0.0.1:1/hooks",
				EventTypes: []openpay.EventType{openpay.EventTypeChargeSucceeded, openpay.EventTypeTransactionExpired}})
			require.NoError(t, err)
			_, err = k.c.Webhooks.Get(ctx, hook.ID)
			require.NoError(t, err)
			hooks, err := k.c.Webhooks.List(ctx)
			require.NoError(t, err)
			assert.Len(t, hooks, 1)
			require.NoError(t, k.c.Webhooks.Delete(ctx, hook.ID))

			// Reads and deletions of what was made.
			_, err = k.c.Charges.Get(ctx, st.ID)
			require.NoError(t, err)
			_, err = k.c.Customer(cu.ID).Cards.Get(ctx, card.ID)
			require.NoError(t, err)
			_, err = k.c.BINs.Get(ctx, "411111")
			require.NoError(t, err)
			require.NoError(t, k.c.Customer(cu.ID).Cards.Delete(ctx, card.ID))
			require.NoError(t, k.c.Customers.Delete(ctx, cu.ID))
		})
	}
}

// TestContractCountryAbsent: what a country lacks answers 1005 (a path the
// country does not have) or 1003 (a payment method it does not have),
// through the SDK's typed errors.
func TestContractCountryAbsent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, country := range []openpay.Country{openpay.CountryColombia, openpay.CountryPeru} {
		t.Run(string(country), func(t *testing.T) {
			t.Parallel()
			k := newCountryContract(t, country)
			cu, err := k.c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com", RequiresAccount: true})
			require.NoError(t, err)
			card, err := k.c.Cards.Create(ctx, cardRequest(openpaytest.CardMastercard))
			require.NoError(t, err)
			notFound := []struct {
				name string
				call func() error
			}{
				{"payout", func() error {
					_, err := k.c.Payouts.Create(ctx, openpay.BankAccountPayout{DestinationID: "bmissing", Amount: openpay.MustAmount("10"), Description: "x"})
					return err
				}},
				{"payout list", func() error { _, err := k.c.Payouts.ListPage(ctx, nil); return err }},
				{"customer payout", func() error {
					_, err := k.c.Customer(cu.ID).Payouts.Create(ctx, openpay.BankAccountPayout{DestinationID: "bmissing", Amount: openpay.MustAmount("10"), Description: "x"})
					return err
				}},
				{"transfer", func() error {
					_, err := k.c.Customer(cu.ID).Transfers.Create(ctx, openpay.TransferRequest{CustomerID: cu.ID, Amount: openpay.MustAmount("10"), Description: "x"})
					return err
				}},
				{"bank account", func() error {
					_, err := k.c.Customer(cu.ID).BankAccounts.Create(ctx, openpay.BankAccountRequest{CLABE: "012298026516924616", HolderName: "Ana"})
					return err
				}},
				{"merchant bank accounts", func() error { _, err := k.c.BankAccounts.ListPage(ctx, nil); return err }},
				{"card points", func() error { _, err := k.c.Cards.Points(ctx, card.ID); return err }},
			}
			if country == openpay.CountryPeru {
				notFound = append(notFound, struct {
					name string
					call func() error
				}{"fees", func() error { _, err := k.c.Fees.ListPage(ctx, nil); return err }})
			}
			for _, nf := range notFound {
				err := nf.call()
				assert.ErrorIs(t, err, openpay.ErrNotFound, nf.name)
			}
			invalid := map[string]openpay.ChargeRequest{
				"alipay": openpay.AlipayCharge{Amount: openpay.MustAmount("10"), Description: "x", RedirectURL: "/"},
				"ivr": openpay.IVRCharge{Amount: openpay.MustAmount("10"), Description: "x",
					Customer: &openpay.ChargeCustomer{Name: "Ana", Email: "ana@example.com"}},
				"points": openpay.CardCharge{SourceID: card.ID, Amount: openpay.MustAmount("10"), Description: "x", UseCardPoints: openpay.UseCardPointsMixed},
			}
			if country == openpay.CountryPeru {
				invalid["spei"] = openpay.BankCharge{Amount: openpay.MustAmount("10"), Description: "x"}
				invalid["pse"] = openpay.PSECharge{Amount: openpay.MustAmount("10"), Description: "x", RedirectURL: "/"}
			}
			for name, req := range invalid {
				_, err := k.c.Charges.Create(ctx, req)
				assert.ErrorIs(t, err, openpay.ErrInvalidParameter, name)
			}
			if country == openpay.CountryColombia {
				// Fees exist in Colombia (the customer's account holds pesos).
				fund, err := k.c.Customer(cu.ID).Charges.Create(ctx, openpay.InlineCardCharge{Card: inlineCard(openpaytest.CardVisa),
					Amount: openpay.MustAmount("5000"), Description: "Fondos"})
				require.NoError(t, err)
				require.Equal(t, openpay.TransactionStatusCompleted, fund.Status)
				fee, err := k.c.Fees.Create(ctx, openpay.FeeRequest{CustomerID: cu.ID, Amount: openpay.MustAmount("1000"), Description: "Comisión"})
				require.NoError(t, err)
				assert.Equal(t, openpay.CurrencyCOP, fee.Currency)
				_, err = k.c.Fees.Get(ctx, fee.ID)
				require.NoError(t, err)
				fees, err := k.c.Fees.ListPage(ctx, nil)
				require.NoError(t, err)
				assert.Len(t, fees, 1)
				back, err := k.c.Fees.Refund(ctx, fee.ID, openpay.FeeRefundRequest{Description: "Devolución"})
				require.NoError(t, err)
				assert.Equal(t, openpay.CurrencyCOP, back.Currency)
			}
		})
	}
}

// TestContractPSE: a Colombian PSE payment through the SDK, paid on the
// bank page and through the controls; a Mexican client's BankCharge stays
// SPEI.
func TestContractPSE(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	k := newCountryContract(t, openpay.CountryColombia)
	payer := &openpay.ChargeCustomer{Name: "Cliente", LastName: "Colombia", Email: "cliente@example.co", PhoneNumber: "4448936475",
		CustomerAddress: &openpay.ColombianAddress{Department: "Antioquia", City: "Medellín", Additional: "Avenida 7m bis #174-25"}}
	ch, err := k.c.Charges.Create(ctx, openpay.PSECharge{Amount: openpay.MustAmount("10000"), Description: "Pedido 7", IVA: openpay.MustAmount("1900"),
		OrderID: "pse-7", RedirectURL: "https://shop.example.co/return?order=7", Customer: payer})
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusChargePending, ch.Status)
	assert.Equal(t, openpay.TransactionMethodBankAccount, ch.Method)
	assert.Equal(t, openpay.CurrencyCOP, ch.Currency)
	require.NotNil(t, ch.PaymentMethod)
	assert.Equal(t, openpay.PaymentInstructionsTypeRedirect, ch.PaymentMethod.Type)
	require.NotNil(t, ch.Customer)
	assert.Equal(t, payer.CustomerAddress, ch.Customer.CustomerAddress)

	// The payer approves on the bank page and comes back with the id.
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Get(ch.PaymentMethod.URL)
	require.NoError(t, err)
	page := readBody(t, res)
	token := regexp.MustCompile(`name="token" value="([^"]+)"`).FindStringSubmatch(page)
	require.NotNil(t, token, page)
	res, err = client.PostForm(ch.PaymentMethod.URL, url.Values{"token": {token[1]}, "action": {"approve"}})
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Equal(t, "https://shop.example.co/return?order=7&id="+ch.ID, res.Header.Get("Location"))
	got, err := k.c.Charges.Get(ctx, ch.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCompleted, got.Status)

	// The controls: fail, and cancel through the API.
	failing, err := k.c.Charges.Create(ctx, openpay.PSECharge{Amount: openpay.MustAmount("5000.50"), Description: "x", RedirectURL: "/", Customer: payer})
	require.NoError(t, err)
	failed, err := k.srv.FailCharge(failing.ID, 0)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusFailed, failed.Status)
	cancelling, err := k.c.Charges.Create(ctx, openpay.PSECharge{Amount: openpay.MustAmount("5000"), Description: "x", RedirectURL: "/", Customer: payer})
	require.NoError(t, err)
	cancelled, err := k.c.Charges.Cancel(ctx, cancelling.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCancelled, cancelled.Status)

	// A taken order_id is refused for another amount, as everywhere; an
	// exact re-send gets the charge already made (issue 31).
	_, err = k.c.Charges.Create(ctx, openpay.PSECharge{Amount: openpay.MustAmount("20000"), Description: "again", OrderID: "pse-7", RedirectURL: "/", Customer: payer})
	var conflict *openpay.OrderConflictError
	require.ErrorAs(t, err, &conflict)
	assert.ErrorIs(t, err, openpay.ErrDuplicateOrderID)
	again, err := k.c.Charges.Create(ctx, openpay.PSECharge{Amount: openpay.MustAmount("10000"), Description: "Pedido 7", IVA: openpay.MustAmount("1900"),
		OrderID: "pse-7", RedirectURL: "https://shop.example.co/return?order=7", Customer: payer})
	require.NoError(t, err)
	assert.Equal(t, ch.ID, again.ID)

	// What no PSE charge can be is refused before sending. (A currency
	// other than COP no longer compiles: PSECharge has no Currency, the SDK
	// writes COP.)
	for name, bad := range map[string]openpay.PSECharge{
		"no redirect_url": {Amount: openpay.MustAmount("10000"), Description: "x", Customer: payer},
	} {
		before := len(k.srv.Events())
		_, err := k.c.Charges.Create(ctx, bad)
		assert.ErrorIs(t, err, openpay.ErrInvalidPSECharge, name)
		var oe *openpay.Error
		assert.False(t, errors.As(err, &oe), "%s: not the gateway's answer", name)
		assert.Len(t, k.srv.Events(), before, "%s: nothing reached the server", name)
	}
	// In Mexico bank_account is SPEI and PSE does not exist.
	mx := newContract(t)
	spei, err := mx.c.Charges.Create(ctx, openpay.BankCharge{Amount: openpay.MustAmount("100"), Description: "SPEI"})
	require.NoError(t, err)
	assert.Equal(t, openpay.PaymentInstructionsTypeBankTransfer, spei.PaymentMethod.Type)
	_, err = mx.c.Charges.Create(ctx, openpay.PSECharge{Amount: openpay.MustAmount("100"), Description: "x", RedirectURL: "/"})
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter, "a Mexican account takes no PSE (its bank_account charge is SPEI, in MXN)")
}

func readBody(t *testing.T, res *http.Response) string {
	t.Helper()
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return string(b)
}

// TestContractPeruCreatedAnswers: in Peru the gateway answers 201 to the
// creation of a customer, a customer card, a merchant card and a token
// (the vendor's Peru suite); the SDK takes any 2xx, so a Peruvian
// merchant's everyday sequence works the same as in Mexico, and the
// objects are there afterwards.
func TestContractPeruCreatedAnswers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	k := newCountryContract(t, openpay.CountryPeru)
	var info openpay.ResponseInfo
	cu, err := k.c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Marco", Email: "marco@example.pe"}, openpay.WithResponseInfo(&info))
	require.NoError(t, err)
	assert.Equal(t, http.StatusCreated, info.HTTPStatus, "the server answers Peru's 201")
	card, err := k.c.Customer(cu.ID).Cards.Create(ctx, openpay.CardRequest{Card: openpay.CardDetails{HolderName: "Marco Morales",
		CardNumber: openpaytest.CardVisa, CVV2: "123", ExpirationMonth: "12", ExpirationYear: "30"}})
	require.NoError(t, err)
	_, err = k.c.Cards.Create(ctx, openpay.CardRequest{Card: openpay.CardDetails{HolderName: "Marco Morales",
		CardNumber: openpaytest.CardMastercard, CVV2: "123", ExpirationMonth: "12", ExpirationYear: "30"}})
	require.NoError(t, err)
	tok, err := k.public.Tokens.Create(ctx, openpay.CardDetails{HolderName: "Marco Morales", CardNumber: openpaytest.CardVisa,
		CVV2: "123", ExpirationMonth: "12", ExpirationYear: "30"}, openpay.WithResponseInfo(&info))
	require.NoError(t, err)
	assert.Equal(t, http.StatusCreated, info.HTTPStatus)
	ch, err := k.c.Charges.Create(ctx, openpay.CardCharge{SourceID: tok.ID, Amount: openpay.MustAmount("80.00"), Description: "Pedido 1",
		OrderID: "pe-1", DeviceSessionID: "dsid", Customer: &openpay.ChargeCustomer{Name: "Marco", Email: "marco@example.pe"}})
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCompleted, ch.Status)
	got, err := k.c.Customer(cu.ID).Cards.Get(ctx, card.ID)
	require.NoError(t, err)
	assert.Equal(t, card.ID, got.ID)
	cards, err := k.c.Cards.ListPage(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, cards, 1, "the merchant card, made once")
}
