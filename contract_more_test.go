package openpay_test

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Contract tests for webhooks (with real deliveries to a receiver built on
// openpay.WebhookHandler), the store search and merchant groups.

// receiver is a webhook URL served by the SDK's handler; it records every
// event it accepts.
type receiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	events []openpay.WebhookEvent
	got    chan struct{}
}

func newReceiver(t *testing.T, user, password string) *receiver {
	rc := &receiver{got: make(chan struct{}, 100)}
	rc.srv = httptest.NewServer(webhookHandler(t, user, password, func(_ context.Context, ev *openpay.WebhookEvent) error {
		rc.mu.Lock()
		rc.events = append(rc.events, *ev)
		rc.mu.Unlock()
		rc.got <- struct{}{}
		return nil
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

// waitFor waits for an accepted event of type typ and returns it.
func (rc *receiver) waitFor(t *testing.T, typ openpay.EventType) openpay.WebhookEvent {
	t.Helper()
	return rc.waitMatch(t, string(typ), func(ev openpay.WebhookEvent) bool { return ev.Type == typ })
}

// waitMatch waits for the first accepted event that match takes (what
// describes it in the failure) and returns it.
func (rc *receiver) waitMatch(t *testing.T, what string, match func(openpay.WebhookEvent) bool) openpay.WebhookEvent {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		rc.mu.Lock()
		for _, ev := range rc.events {
			if match(ev) {
				rc.mu.Unlock()
				return ev
			}
		}
		rc.mu.Unlock()
		select {
		case <-rc.got:
		case <-deadline:
			t.Fatalf("no %s event delivered", what)
		}
	}
}

func TestContractWebhooks(t *testing.T) {
	t.Parallel()
	k := newContract(t)
	ctx := context.Background()
	rc := newReceiver(t, "hook-user", "hook-secret")

	wh, err := k.c.Webhooks.Create(ctx, openpay.WebhookRequest{URL: rc.srv.URL, User: "hook-user", Password: "hook-secret",
		EventTypes: []openpay.EventType{openpay.EventTypeChargeSucceeded, openpay.EventTypeChargeRefunded}})
	require.NoError(t, err)
	assert.Equal(t, openpay.WebhookStatusVerified, wh.Status, "the receiver answered the verification event with 2xx")
	ver := rc.waitFor(t, openpay.EventTypeVerification)
	assert.Len(t, ver.VerificationCode, 8)

	// A charge reaches the receiver, with the right credentials.
	ch, err := k.c.Charges.Create(ctx, openpay.InlineCardCharge{Card: inlineCard(openpaytest.CardVisa), Amount: openpay.MustAmount("75"), Description: "hooked"})
	require.NoError(t, err)
	ev := rc.waitFor(t, openpay.EventTypeChargeSucceeded)
	require.NotNil(t, ev.Transaction)
	assert.Equal(t, ch.ID, ev.Transaction.ID)

	got, err := k.c.Webhooks.Get(ctx, wh.ID)
	require.NoError(t, err)
	assert.Equal(t, rc.srv.URL, got.URL)
	list, err := k.c.Webhooks.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, wh.ID, list[0].ID)

	// A receiver that answers 500 refuses the verification: the webhook
	// stays unverified until verified with the code it was sent.
	var codes []string
	var codesMu sync.Mutex
	sniff := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev openpay.WebhookEvent
		h, err := openpay.WebhookHandler("hook-user", "hook-secret", func(_ context.Context, e *openpay.WebhookEvent) error {
			ev = *e
			return nil
		})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		codesMu.Lock()
		codes = append(codes, ev.VerificationCode)
		codesMu.Unlock()
		w.WriteHeader(http.StatusInternalServerError) // refuse every delivery
	}))
	t.Cleanup(sniff.Close)
	un, err := k.c.Webhooks.Create(ctx, openpay.WebhookRequest{URL: sniff.URL, User: "hook-user", Password: "hook-secret",
		EventTypes: []openpay.EventType{openpay.EventTypePayoutCreated}})
	require.NoError(t, err)
	assert.Equal(t, openpay.WebhookStatusUnverified, un.Status)
	codesMu.Lock()
	require.NotEmpty(t, codes)
	code := codes[0]
	codesMu.Unlock()
	require.Len(t, code, 8)
	wrong := "00000000"
	if code == wrong {
		wrong = "11111111"
	}
	err = k.c.Webhooks.Verify(ctx, un.ID, wrong)
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter, "a wrong code is refused")
	got, err = k.c.Webhooks.Get(ctx, un.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.WebhookStatusUnverified, got.Status)
	require.NoError(t, k.c.Webhooks.Verify(ctx, un.ID, code))
	got, err = k.c.Webhooks.Get(ctx, un.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.WebhookStatusVerified, got.Status)

	// Delete; then it is gone.
	require.NoError(t, k.c.Webhooks.Delete(ctx, un.ID))
	_, err = k.c.Webhooks.Get(ctx, un.ID)
	assert.ErrorIs(t, err, openpay.ErrNotFound)

	// Validation.
	types := []openpay.EventType{openpay.EventTypeChargeSucceeded}
	_, err = k.c.Webhooks.Create(ctx, openpay.WebhookRequest{User: "u", Password: "p", EventTypes: types})
	assert.ErrorIs(t, err, openpay.ErrBadRequest, "no url")
	_, err = k.c.Webhooks.Create(ctx, openpay.WebhookRequest{URL: "not a url", User: "u", Password: "p", EventTypes: types})
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter)
	_, err = k.c.Webhooks.Create(ctx, openpay.WebhookRequest{URL: rc.srv.URL, EventTypes: []openpay.EventType{"charge.teleported"}})
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter, "an unknown event type")
}

// kmBetween is the great-circle distance between two points, in km.
func kmBetween(lat1, lng1, lat2, lng2 float64) float64 {
	rad := math.Pi / 180
	dLat, dLng := (lat2-lat1)*rad, (lng2-lng1)*rad
	a := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(lat1*rad)*math.Cos(lat2*rad)*math.Sin(dLng/2)*math.Sin(dLng/2)
	return 2 * 6371 * math.Asin(math.Sqrt(a))
}

func TestContractStores(t *testing.T) {
	t.Parallel()
	k := newContract(t)
	ctx := context.Background()
	// Querétaro's centre: the bundled data set has stores there.
	q := openpay.StoreSearch{Latitude: 20.5888, Longitude: -100.3899, Kilometers: 10, Amount: openpay.MustAmount("500")}
	stores, err := k.c.Stores.Search(ctx, q)
	require.NoError(t, err)
	require.NotEmpty(t, stores)
	prev := 0.0
	for _, st := range stores {
		assert.NotEmpty(t, st.Name)
		require.NotNil(t, st.Geolocation)
		d := kmBetween(q.Latitude, q.Longitude, st.Geolocation.Lat, st.Geolocation.Lng)
		assert.LessOrEqual(t, d, q.Kilometers+0.01, "within the radius")
		assert.GreaterOrEqual(t, d+0.01, prev, "nearest first")
		prev = d
	}
	// A larger amount leaves out the chains that cannot take it.
	q.Amount = openpay.MustAmount("15000")
	fewer, err := k.c.Stores.Search(ctx, q)
	require.NoError(t, err)
	assert.Less(t, len(fewer), len(stores))
	// The middle of the ocean has none.
	none, err := k.c.Stores.Search(ctx, openpay.StoreSearch{Latitude: 0, Longitude: -140, Kilometers: 5, Amount: openpay.MustAmount("10")})
	require.NoError(t, err)
	assert.Empty(t, none)
}

// newGroup adds a group holding the contract's merchant and returns its
// scope, on a client made with the group's key.
func (k *contract) newGroup(t *testing.T) *openpay.GroupScope {
	t.Helper()
	groupID, groupKey, err := k.srv.AddGroup(k.srv.MerchantID)
	require.NoError(t, err)
	gc, err := openpay.New(groupID, groupKey, openpay.WithBaseURL(k.srv.URL), openpay.WithDefaultClientIP("198.51.100.4"))
	require.NoError(t, err)
	return gc.Group(groupID)
}

func TestContractGroups(t *testing.T) {
	t.Parallel()
	k := newContract(t)
	ctx := context.Background()
	g := k.newGroup(t)
	groupID := g.ID

	cust, err := g.Customers.Create(ctx, openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com", ExternalID: "g-1"})
	require.NoError(t, err)
	_, err = g.Customers.Create(ctx, openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com", ExternalID: "g-1"})
	assert.ErrorIs(t, err, openpay.ErrExternalIDExists)
	got, err := g.Customers.Get(ctx, cust.ID)
	require.NoError(t, err)
	assert.Equal(t, "Ana", got.Name)
	upd, err := g.Customers.Update(ctx, cust.ID, openpay.CustomerUpdateRequest{Name: "Ana María", Email: "ana@example.com"})
	require.NoError(t, err)
	assert.Equal(t, "Ana María", upd.Name)
	page, err := g.Customers.ListPage(ctx, &openpay.CustomerListParams{ExternalID: "g-1"})
	require.NoError(t, err)
	require.Len(t, page, 1)

	card, err := g.Customer(cust.ID).Cards.Create(ctx, cardRequest(openpaytest.CardVisa))
	require.NoError(t, err)
	assert.Equal(t, "411111XXXXXX1111", card.CardNumber)
	_, err = g.Customer(cust.ID).Cards.Create(ctx, cardRequest("4111111111111112"))
	assert.ErrorIs(t, err, openpay.ErrCardNumberInvalid)

	// The group's customer pays at one of the group's merchants.
	ch, err := g.Merchant(k.srv.MerchantID).Customer(cust.ID).Charges.Create(ctx, openpay.CardCharge{SourceID: card.ID,
		Amount: openpay.MustAmount("300"), Description: "group order", OrderID: "group-order-1", Capture: openpay.Ptr(false)})
	require.NoError(t, err)
	ch, err = g.Merchant(k.srv.MerchantID).Customer(cust.ID).Charges.Capture(ctx, ch.ID, openpay.CaptureRequest{Amount: openpay.MustAmount("200")})
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCompleted, ch.Status)
	ch, err = g.Merchant(k.srv.MerchantID).Customer(cust.ID).Charges.Refund(ctx, ch.ID, openpay.RefundRequest{Amount: openpay.MustAmount("50")})
	require.NoError(t, err)
	require.NotNil(t, ch.Refund)
	assert.Equal(t, "50.00", ch.Refund.Amount.String())
	// A second refund is refused as the gateway answers it: the group API
	// has no read of a charge to settle it with (issue 31).
	_, err = g.Merchant(k.srv.MerchantID).Customer(cust.ID).Charges.Refund(ctx, ch.ID, openpay.RefundRequest{Amount: openpay.MustAmount("50")})
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter)
	assert.NotErrorIs(t, err, openpay.ErrOutcomeUnknown)

	// The merchant's own key cannot act for the group.
	mine, err := openpay.New(groupID, k.srv.PrivateKey, openpay.WithBaseURL(k.srv.URL))
	require.NoError(t, err)
	_, err = mine.Group(groupID).Customers.Get(ctx, cust.ID)
	assert.ErrorIs(t, err, openpay.ErrUnauthorized)

	require.NoError(t, g.Customer(cust.ID).Cards.Delete(ctx, card.ID))
	require.NoError(t, g.Customers.Delete(ctx, cust.ID))
	_, err = g.Customers.Get(ctx, cust.ID)
	assert.ErrorIs(t, err, openpay.ErrNotFound)
}

// The rest of the group API through the SDK: lists, cards from tokens and
// their updates, charges at a merchant of the group, and subscriptions. A
// charge made through the group is the merchant's: the merchant reads it
// with its own client, as the group API cannot.
func TestContractGroupOperations(t *testing.T) {
	t.Parallel()
	k := newContract(t)
	ctx := context.Background()
	g := k.newGroup(t)
	m := g.Merchant(k.srv.MerchantID)

	var custIDs []string
	for _, name := range []string{"Ana", "Beto", "Carla"} {
		cu, err := g.Customers.Create(ctx, openpay.CustomerRequest{Name: name, Email: strings.ToLower(name) + "@example.com"})
		require.NoError(t, err)
		custIDs = append(custIDs, cu.ID)
	}
	slices.Reverse(custIDs) // newest first
	custID := func(c *openpay.Customer) string { return c.ID }
	assert.Equal(t, custIDs, collect(t, g.Customers.List(ctx, &openpay.CustomerListParams{ListParams: openpay.ListParams{Limit: 2}}), custID))
	page, err := g.Customers.ListPage(ctx, &openpay.CustomerListParams{ListParams: openpay.ListParams{Offset: 1, Limit: 1}})
	assert.Equal(t, custIDs[1:2], pageIDs(t, page, err, custID))
	cust := custIDs[0]

	// Cards: from data and from a token of the group's merchant.
	cards := g.Customer(cust).Cards
	byData, err := cards.Create(ctx, cardRequest(openpaytest.CardVisa))
	require.NoError(t, err)
	tok, err := k.public.Tokens.Create(ctx, openpay.CardDetails{HolderName: "Ana", CardNumber: openpaytest.CardMastercard,
		CVV2: openpaytest.CVV(openpaytest.CardMastercard), ExpirationMonth: "11", ExpirationYear: futureYear()})
	require.NoError(t, err)
	byToken, err := cards.CreateFromToken(ctx, openpay.TokenCardRequest{TokenID: tok.ID, DeviceSessionID: "s1"})
	require.NoError(t, err)
	assert.Equal(t, "11", byToken.ExpirationMonth)
	cardID := func(c *openpay.Card) string { return c.ID }
	assert.Equal(t, []string{byToken.ID, byData.ID}, collect(t, cards.List(ctx, nil), cardID))
	cardPage, err := cards.ListPage(ctx, &openpay.ListParams{Limit: 1})
	assert.Equal(t, []string{byToken.ID}, pageIDs(t, cardPage, err, cardID))
	require.NoError(t, cards.Update(ctx, byData.ID, openpay.CardUpdateRequest{HolderName: "Ana Ruiz", MerchantID: k.srv.MerchantID}))
	got, err := cards.Get(ctx, byData.ID)
	require.NoError(t, err)
	assert.Equal(t, "Ana Ruiz", got.HolderName)

	// A pre-authorization at the merchant, captured in part, then refunded.
	ch, err := m.Charges.Create(ctx, openpay.InlineCardCharge{Card: inlineCard(openpaytest.CardVisa), Amount: openpay.MustAmount("120"),
		Description: "group merchant order", OrderID: "gm-1", Capture: openpay.Ptr(false)})
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusInProgress, ch.Status)
	ch, err = m.Charges.Capture(ctx, ch.ID, openpay.CaptureRequest{Amount: openpay.MustAmount("100")})
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCompleted, ch.Status)
	assert.Equal(t, "100.00", ch.Amount.String())
	ch, err = m.Charges.Refund(ctx, ch.ID, openpay.RefundRequest{Description: "returned"})
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusRefunded, ch.Status)
	_, err = m.Charges.Create(ctx, openpay.InlineCardCharge{Card: inlineCard(openpaytest.CardVisa), Amount: openpay.MustAmount("5"),
		Description: "again", OrderID: "gm-1"})
	assert.ErrorIs(t, err, openpay.ErrDuplicateOrderID)
	mine, err := k.c.Charges.Get(ctx, ch.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusRefunded, mine.Status)

	// The group customer's stored card, charged at the merchant.
	cch, err := m.Customer(cust).Charges.Create(ctx, openpay.CardCharge{SourceID: byToken.ID, Amount: openpay.MustAmount("80"),
		Description: "group customer order", OrderID: "gmc-1"})
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCompleted, cch.Status)
	mine, err = k.c.Charges.Get(ctx, cch.ID)
	require.NoError(t, err)
	assert.Equal(t, "gmc-1", mine.OrderID)

	// Subscriptions of the group customer to a plan of the merchant.
	subs := m.Customer(cust).Subscriptions
	plan := k.mustPlan(t, "Group plan")
	s1, err := subs.Create(ctx, openpay.SubscriptionRequest{PlanID: plan, SourceID: byData.ID})
	require.NoError(t, err)
	s2, err := subs.Create(ctx, openpay.SubscriptionRequest{PlanID: plan, SourceID: byToken.ID})
	require.NoError(t, err)
	subID := func(s *openpay.Subscription) string { return s.ID }
	assert.Equal(t, []string{s2.ID, s1.ID}, collect(t, subs.List(ctx, nil), subID))
	subPage, err := subs.ListPage(ctx, &openpay.ListParams{Offset: 1})
	assert.Equal(t, []string{s1.ID}, pageIDs(t, subPage, err, subID))
	s1, err = subs.Update(ctx, s1.ID, openpay.SubscriptionUpdateRequest{CancelAtPeriodEnd: openpay.Ptr(true)})
	require.NoError(t, err)
	assert.True(t, s1.CancelAtPeriodEnd)
	require.NoError(t, subs.Cancel(ctx, s2.ID))
	_, err = subs.Get(ctx, s2.ID)
	assert.ErrorIs(t, err, openpay.ErrNotFound, "a deleted subscription is gone")

	require.NoError(t, cards.Delete(ctx, byData.ID))
	_, err = cards.Get(ctx, byData.ID)
	assert.ErrorIs(t, err, openpay.ErrNotFound)
}

func TestContractBINLookup(t *testing.T) {
	t.Parallel()
	k := newContract(t, openpaytest.Deterministic())
	ctx := context.Background()
	bin, err := k.c.BINs.Get(ctx, openpaytest.CardVisa[:6])
	require.NoError(t, err)
	assert.Equal(t, openpaytest.CardVisa[:6], bin.BIN)
	assert.Equal(t, "Banamex", bin.Bank)
	assert.Equal(t, openpay.CardBrandVisa, bin.Brand, "the brand is a CardBrand, as on cards")
	assert.Equal(t, openpay.CardTypeDebit, bin.Type)
	assert.Equal(t, "MX", bin.CountryCode)
	assert.True(t, bin.AllowedOnline)
	_, err = k.c.BINs.Get(ctx, "123456")
	assert.ErrorIs(t, err, openpay.ErrNotFound)
	_, err = k.c.BINs.Get(ctx, "12345")
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter)
}

func TestContractChargeUpdate(t *testing.T) {
	t.Parallel()
	k := newContract(t, openpaytest.Deterministic())
	ctx := context.Background()
	cust, card := k.subscriber(t, openpaytest.CardVisa)
	ch, err := k.c.Customer(cust.ID).Charges.Create(ctx, openpay.CardCharge{SourceID: card.ID, Amount: openpay.MustAmount("100"),
		Description: "first", OrderID: "order-1"})
	require.NoError(t, err)
	other, err := k.c.Customer(cust.ID).Charges.Create(ctx, openpay.CardCharge{SourceID: card.ID, Amount: openpay.MustAmount("5"),
		Description: "second", OrderID: "order-2"})
	require.NoError(t, err)

	upd, err := k.c.Customer(cust.ID).Charges.Update(ctx, ch.ID, openpay.ChargeUpdateRequest{Description: "Pedido 77"})
	require.NoError(t, err)
	assert.Equal(t, "Pedido 77", upd.Description)
	assert.Equal(t, "order-1", upd.OrderID, "a member not sent stays")
	upd, err = k.c.Charges.Update(ctx, ch.ID, openpay.ChargeUpdateRequest{OrderID: "pedido-77"})
	require.NoError(t, err, "the merchant path finds a customer's charge")
	assert.Equal(t, "pedido-77", upd.OrderID)
	got, err := k.c.Charges.Get(ctx, ch.ID)
	require.NoError(t, err)
	assert.Equal(t, "pedido-77", got.OrderID)
	_, err = k.c.Charges.Update(ctx, other.ID, openpay.ChargeUpdateRequest{OrderID: "pedido-77"})
	assert.ErrorIs(t, err, openpay.ErrDuplicateOrderID)
	_, err = k.c.Charges.Update(ctx, "trnotthere", openpay.ChargeUpdateRequest{Description: "x"})
	assert.ErrorIs(t, err, openpay.ErrNotFound)
}

// TestContractPluginBINChecks: BINs.CardType asks each country's lookup
// (the one its checkout plug-ins use) and answers one typed CardType,
// whatever case the lookup writes; Colombia's and Peru's send no
// credentials, so a client holding the public key may make them, Mexico's
// needs the private key.
func TestContractPluginBINChecks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	mx := newContract(t, openpaytest.Deterministic())
	typ, err := mx.c.BINs.CardType(ctx, "42424242")
	require.NoError(t, err)
	assert.Equal(t, openpay.CardTypeCredit, typ)
	_, err = mx.c.BINs.CardType(ctx, "12345678")
	assert.ErrorIs(t, err, openpay.ErrNotFound)
	_, err = mx.public.BINs.CardType(ctx, "42424242")
	assert.Error(t, err, "Mexico's lookup takes the private key")
	full, err := mx.c.BINs.Get(ctx, "424242")
	require.NoError(t, err)
	assert.Equal(t, openpay.CardTypeCredit, full.Type, "Get's type is the same CardType")

	co := newCountryContract(t, openpay.CountryColombia)
	for _, c := range []*openpay.Client{co.c, co.public} {
		typ, err = c.BINs.CardType(ctx, openpaytest.CardVisa[:8])
		require.NoError(t, err)
		assert.Equal(t, openpay.CardTypeDebit, typ)
	}
	_, err = co.c.BINs.CardType(ctx, "4242")
	assert.ErrorIs(t, err, openpay.ErrInvalidParameter)

	pe := newCountryContract(t, openpay.CountryPeru)
	typ, err = pe.public.BINs.CardType(ctx, "424242")
	require.NoError(t, err)
	assert.Equal(t, openpay.CardTypeCredit, typ)
	p, err := pe.public.BINs.Promotions(ctx, "424242")
	require.NoError(t, err)
	assert.Equal(t, openpay.CardTypeCredit, p.CardType)
	assert.Equal(t, []int{3, 6, 9, 12, 18}, p.Installments)
	require.NotNil(t, p.WithInterest)
	assert.True(t, *p.WithInterest)
}
