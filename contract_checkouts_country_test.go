package openpay_test

import (
	"context"
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Contract tests of checkouts in Peru and Colombia, where every vendor
// client's checkout tests run: through the SDK against a reference server
// whose merchant is of the country, on the fake clock (2026-01-05 10:00),
// paid by card, at a store, and by PSE in Colombia.

func newCountryCheckoutContract(t *testing.T, c openpay.Country) *contract {
	t.Helper()
	srv := openpaytest.NewServer(t, openpaytest.Deterministic(), openpaytest.WithCountry(c))
	cl, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithCountry(c), openpay.WithBaseURL(srv.URL),
		openpay.WithDefaultClientIP("198.51.100.4"))
	require.NoError(t, err)
	return &contract{srv: srv, c: cl}
}

func TestContractCheckoutsPerCountry(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		country  openpay.Country
		currency openpay.Currency
		amount   string
		iva      openpay.Amount
		payer    openpay.ChargeCustomer
	}{
		{openpay.CountryPeru, "PEN", "150.50", openpay.Amount{}, openpay.ChargeCustomer{Name: "Marco", LastName: "Morales", Email: "marco@example.pe",
			Address: &openpay.Address{Line1: "Av. Arequipa 1200", PostalCode: "15046", State: "Lima", City: "Lima", CountryCode: "PE"}}},
		{openpay.CountryColombia, "COP", "10000", openpay.MustAmount("1900"), openpay.ChargeCustomer{Name: "Juan", LastName: "Pérez", Email: "juan@example.co",
			CustomerAddress: &openpay.ColombianAddress{Department: "Cundinamarca", City: "Bogotá", Additional: "Carrera 7 # 72-41"}}},
	} {
		t.Run(string(tc.country), func(t *testing.T) {
			t.Parallel()
			k := newCountryCheckoutContract(t, tc.country)
			ctx := context.Background()
			rc := newReceiver(t, "", "")
			_, err := k.c.Webhooks.Create(ctx, openpay.WebhookRequest{URL: rc.srv.URL,
				EventTypes: []openpay.EventType{openpay.EventTypeChargeCreated, openpay.EventTypeChargeSucceeded, openpay.EventTypeChargeFailed}})
			require.NoError(t, err)
			newLink := func(order string) *openpay.Checkout {
				t.Helper()
				payer := tc.payer
				co, err := k.c.Checkouts.Create(ctx, openpay.CheckoutRequest{Amount: openpay.MustAmount(tc.amount), Description: "Pedido " + order,
					OrderID: order, IVA: tc.iva, RedirectURL: "https://tienda.example/pagado", ExpirationDate: time.Date(2026, 1, 7, 10, 0, 0, 0, tc.country.Location()), Customer: &payer})
				require.NoError(t, err)
				return co
			}

			// Created in the account's currency, with the country's iva.
			card := newLink("card-1")
			assert.Equal(t, tc.currency, card.Currency)
			assert.True(t, tc.iva.Equal(card.IVA), "iva %s", card.IVA)
			assert.Equal(t, openpay.CheckoutStatusAvailable, card.Status)
			assert.True(t, strings.HasPrefix(card.CheckoutLink, k.srv.URL+"/checkout/"), card.CheckoutLink)
			assert.Equal(t, tc.payer.Email, card.Customer.Email)
			_, err = k.c.Checkouts.Create(ctx, openpay.CheckoutRequest{Amount: openpay.MustAmount("10"), Description: "x", Currency: openpay.CurrencyMXN})
			assert.ErrorIs(t, err, openpay.ErrInvalidParameter, "the account's currency only")
			_, err = k.c.Checkouts.Create(ctx, openpay.CheckoutRequest{Amount: openpay.MustAmount("10"), Description: "x", IVA: openpay.MustAmount("-19")})
			assert.ErrorIs(t, err, openpay.ErrInvalidParameter, "iva as on a charge")

			// By card: declined, then paid.
			_, err = k.srv.PayCheckout(card.ID, openpaytest.EmulatorCardDeclined)
			assert.ErrorIs(t, err, openpay.ErrCardDeclined)
			paid, err := k.srv.PayCheckout(card.ID, openpaytest.CardVisa)
			require.NoError(t, err)
			assert.Equal(t, openpay.CheckoutStatusCompleted, paid.Status)
			assert.Equal(t, openpay.TransactionMethodCard, paid.Transaction.Method)
			assert.Equal(t, tc.currency, paid.Transaction.Currency)
			rc.waitForOrder(t, openpay.EventTypeChargeSucceeded, "card-1")

			// At a store: the charge waits for the payer's cash, then pays the link.
			store := newLink("store-1")
			waiting, err := k.srv.PayCheckoutBy(store.ID, openpay.ChargeMethodStore)
			require.NoError(t, err)
			assert.Equal(t, openpay.CheckoutStatusAvailable, waiting.Status)
			charge := waiting.Transaction
			require.NotNil(t, charge)
			assert.Equal(t, openpay.TransactionMethodStore, charge.Method)
			assert.Equal(t, openpay.TransactionStatusInProgress, charge.Status)
			assert.Equal(t, openpay.MustAmount(tc.amount).String(), charge.Amount.String())
			assert.Equal(t, tc.currency, charge.Currency)
			require.NotNil(t, charge.PaymentMethod)
			assert.NotEmpty(t, charge.PaymentMethod.Reference)
			assert.NotEmpty(t, charge.PaymentMethod.BarcodeURL)
			assert.Empty(t, charge.PaymentMethod.PaybinReference, "Paybin is Mexican")
			assert.Equal(t, charge.ID, rc.waitForOrder(t, openpay.EventTypeChargeCreated, "store-1").Transaction.ID)
			_, err = k.srv.PayCheckout(store.ID, openpaytest.CardVisa)
			assert.ErrorIs(t, err, openpay.ErrInvalidParameter, "one payment at a time")
			_, err = k.c.Checkouts.Update(ctx, store.ID, openpay.CheckoutUpdateRequest{Status: openpay.CheckoutStatusCancelled})
			assert.ErrorIs(t, err, openpay.ErrInvalidParameter, "not while the store payment waits")
			_, err = k.srv.PayCharge(charge.ID)
			require.NoError(t, err)
			got, err := k.c.Checkouts.Get(ctx, "store-1")
			require.NoError(t, err)
			assert.Equal(t, openpay.CheckoutStatusCompleted, got.Status)
			assert.Equal(t, charge.ID, got.Transaction.ID)
			assert.Equal(t, charge.ID, rc.waitForOrder(t, openpay.EventTypeChargeSucceeded, "store-1").Transaction.ID)

			// PSE: Colombia's, no one else's.
			pse := newLink("pse-1")
			pending, err := k.srv.PayCheckoutBy(pse.ID, openpay.ChargeMethodBankAccount)
			if tc.country != openpay.CountryColombia {
				assert.ErrorIs(t, err, openpay.ErrInvalidParameter)
				got, err := k.c.Checkouts.Get(ctx, pse.ID)
				require.NoError(t, err)
				assert.Nil(t, got.Transaction, "no charge was made")
			} else {
				require.NoError(t, err)
				charge := pending.Transaction
				assert.Equal(t, openpay.TransactionMethodBankAccount, charge.Method)
				assert.Equal(t, openpay.TransactionStatusChargePending, charge.Status)
				assert.Equal(t, openpay.CurrencyCOP, charge.Currency)
				require.NotNil(t, charge.PaymentMethod)
				assert.Equal(t, openpay.PaymentInstructionsTypeRedirect, charge.PaymentMethod.Type)
				assert.True(t, strings.HasPrefix(charge.PaymentMethod.URL, k.srv.URL+"/v1/"), charge.PaymentMethod.URL)
				_, err = k.srv.CompleteCharge(charge.ID) // the payer's bank approves
				require.NoError(t, err)
				got, err := k.c.Checkouts.Get(ctx, pse.ID)
				require.NoError(t, err)
				assert.Equal(t, openpay.CheckoutStatusCompleted, got.Status)
				fromAPI, err := k.c.Charges.Get(ctx, charge.ID)
				require.NoError(t, err)
				assert.Equal(t, openpay.TransactionStatusCompleted, fromAPI.Status)
				assert.Equal(t, "pse-1", fromAPI.OrderID)
			}
			_, err = k.srv.PayCheckoutBy(pse.ID, openpay.ChargeMethodCard)
			assert.ErrorIs(t, err, openpay.ErrInvalidParameter, "a card needs its number")

			// List, get, update.
			ids := func(seq iter.Seq2[*openpay.Checkout, error]) []string {
				var out []string
				for c, err := range seq {
					require.NoError(t, err)
					out = append(out, c.ID)
				}
				return out
			}
			assert.Equal(t, []string{pse.ID, store.ID, card.ID}, ids(k.c.Checkouts.List(ctx, nil)), "newest first")
			day := openpay.NewDate(2026, time.January, 5)
			assert.Len(t, ids(k.c.Checkouts.List(ctx, &openpay.CheckoutListParams{StartDate: day, EndDate: day})), 3)
			open := newLink("open-1")
			upd, err := k.c.Checkouts.Update(ctx, open.ID, openpay.CheckoutUpdateRequest{Status: openpay.CheckoutStatusAvailable,
				ExpirationDate: time.Date(2026, 1, 10, 18, 30, 0, 0, tc.country.Location())})
			require.NoError(t, err)
			assert.Equal(t, "2026-01-10 18:30", upd.ExpirationDate.Format("2006-01-02 15:04"))
			upd, err = k.c.Checkouts.Update(ctx, open.ID, openpay.CheckoutUpdateRequest{Status: openpay.CheckoutStatusCancelled})
			require.NoError(t, err)
			assert.Equal(t, openpay.CheckoutStatusCancelled, upd.Status)
			_, err = k.srv.PayCheckoutBy(open.ID, openpay.ChargeMethodStore)
			assert.ErrorIs(t, err, openpay.ErrInvalidParameter, "a cancelled link takes no payment")
			got, err = k.c.Checkouts.Get(ctx, open.ID)
			require.NoError(t, err)
			assert.Equal(t, openpay.CheckoutStatusCancelled, got.Status)
			_, err = k.c.Checkouts.Update(ctx, card.ID, openpay.CheckoutUpdateRequest{Status: openpay.CheckoutStatusCancelled})
			assert.ErrorIs(t, err, openpay.ErrInvalidParameter, "a paid link cannot change")
		})
	}
}

// TestContractCustomerCheckoutAtStore: a Colombian customer's link paid at
// a store is the customer's charge, and keeps its iva.
func TestContractCustomerCheckoutAtStore(t *testing.T) {
	t.Parallel()
	k := newCountryCheckoutContract(t, openpay.CountryColombia)
	ctx := context.Background()
	cu, err := k.c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Laura", Email: "laura@example.co"})
	require.NoError(t, err)
	co, err := k.c.Customer(cu.ID).Checkouts.Create(ctx, openpay.CheckoutRequest{Amount: openpay.MustAmount("25000"), Description: "Suscripción", IVA: openpay.MustAmount("3991.60")})
	require.NoError(t, err)
	waiting, err := k.srv.PayCheckoutBy(co.ID, openpay.ChargeMethodStore)
	require.NoError(t, err)
	assert.Equal(t, cu.ID, waiting.Transaction.CustomerID)
	_, err = k.srv.PayCharge(waiting.Transaction.ID)
	require.NoError(t, err)
	got, err := k.c.Customer(cu.ID).Checkouts.Get(ctx, co.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.CheckoutStatusCompleted, got.Status)
	assert.Equal(t, "3991.60", got.IVA.String())
	charges, err := k.c.Customer(cu.ID).Charges.ListPage(ctx, nil)
	require.NoError(t, err)
	require.Len(t, charges, 1)
	assert.Equal(t, openpay.TransactionStatusCompleted, charges[0].Status)
}

// waitForOrder waits for an accepted event of type typ whose transaction
// carries the order_id, and returns it.
func (rc *receiver) waitForOrder(t *testing.T, typ openpay.EventType, orderID string) openpay.WebhookEvent {
	t.Helper()
	return rc.waitMatch(t, string(typ)+" of order "+orderID, func(ev openpay.WebhookEvent) bool {
		return ev.Type == typ && ev.Transaction != nil && ev.Transaction.OrderID == orderID
	})
}
