package openpay_test

import (
	"context"
	"errors"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Text that is not valid UTF-8 (here Latin-1 bytes, as read from an old
// database or a form posted in ISO-8859-1) is refused before sending, with
// the member named and its text not echoed; encoding/json would otherwise
// send U+FFFD in its place and the gateway would keep that. Genuine U+FFFD
// and the text "\ufffd" are ordinary text and go through unchanged
// (issue 22, item 7).
func TestInvalidUTF8RefusedBeforeSending(t *testing.T) {
	t.Parallel()
	k := newContract(t)
	ctx := context.Background()
	card, err := k.c.Cards.Create(ctx, cardRequest(openpaytest.CardVisa))
	require.NoError(t, err)
	cust, err := k.c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com"})
	require.NoError(t, err)

	latin1 := "Caf\xe9 del Se\xf1or" // "Café del Señor" in ISO-8859-1
	charge := func(mod func(*openpay.CardCharge)) openpay.ChargeRequest {
		req := openpay.CardCharge{SourceID: card.ID, Amount: openpay.MustAmount("10"), Description: "Pedido 1"}
		mod(&req)
		return req
	}
	for _, tc := range []struct {
		name, where string
		call        func(opt openpay.CallOption) error
	}{
		{"description", "description", func(opt openpay.CallOption) error {
			_, err := k.c.Charges.Create(ctx, charge(func(r *openpay.CardCharge) { r.Description = latin1 }), opt)
			return err
		}},
		{"order id", "order_id", func(opt openpay.CallOption) error {
			_, err := k.c.Charges.Create(ctx, charge(func(r *openpay.CardCharge) { r.OrderID = "pedido-\xf1-1" }), opt)
			return err
		}},
		{"metadata value", "metadata.note", func(opt openpay.CallOption) error {
			_, err := k.c.Charges.Create(ctx, charge(func(r *openpay.CardCharge) { r.Metadata = openpay.Metadata{"sku": "A1", "note": latin1} }), opt)
			return err
		}},
		{"metadata key", "a member name in metadata", func(opt openpay.CallOption) error {
			_, err := k.c.Charges.Create(ctx, charge(func(r *openpay.CardCharge) { r.Metadata = openpay.Metadata{"se\xf1a": "x"} }), opt)
			return err
		}},
		{"customer of a store charge", "customer.name", func(opt openpay.CallOption) error {
			_, err := k.c.Charges.Create(ctx, openpay.StoreCharge{Amount: openpay.MustAmount("10"), Description: "Pedido 2",
				Customer: &openpay.ChargeCustomer{Name: latin1, Email: "a@example.com"}}, opt)
			return err
		}},
		{"inline card holder", "card.holder_name", func(opt openpay.CallOption) error {
			c := inlineCard(openpaytest.CardVisa)
			c.HolderName = "Jos\xe9"
			_, err := k.c.Charges.Create(ctx, openpay.InlineCardCharge{Card: c, Amount: openpay.MustAmount("10"), Description: "d"}, opt)
			return err
		}},
		{"customer", "last_name", func(opt openpay.CallOption) error {
			_, err := k.c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Ana", LastName: "P\xe9rez", Email: "ana@example.com"}, opt)
			return err
		}},
		{"payout", "description", func(opt openpay.CallOption) error {
			_, err := k.c.Payouts.Create(ctx, openpay.BankAccountPayout{DestinationID: "ba1", Amount: openpay.MustAmount("10"), Description: latin1}, opt)
			return err
		}},
		{"charge update", "description", func(opt openpay.CallOption) error {
			_, err := k.c.Charges.Update(ctx, "tr1", openpay.ChargeUpdateRequest{Description: latin1}, opt)
			return err
		}},
		{"list filter", "the query parameter order_id", func(opt openpay.CallOption) error {
			_, err := k.c.Charges.ListPage(ctx, &openpay.TransactionListParams{OrderID: "pedido-\xf1"}, opt)
			return err
		}},
		{"list iterator filter", "the query parameter external_id", func(opt openpay.CallOption) error {
			for _, err := range k.c.Customers.List(ctx, &openpay.CustomerListParams{ExternalID: "cliente-\xf1"}, opt) {
				return err
			}
			return errors.New("no error yielded")
		}},
		{"id", "an id", func(opt openpay.CallOption) error {
			_, err := k.c.Customer(cust.ID).Cards.Get(ctx, "k\xf1", opt)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info := openpay.ResponseInfo{Attempts: -1}
			err := tc.call(openpay.WithResponseInfo(&info))
			require.ErrorIs(t, err, openpay.ErrInvalidUTF8)
			assert.Contains(t, err.Error(), "not sent: "+tc.where+" is not valid UTF-8")
			for _, leak := range []string{"Caf", "Se", "\xf1", "\xe9", "\ufffd", "pedido", "cliente", "rez"} {
				assert.NotContains(t, err.Error(), leak)
			}
			if tc.where != "an id" { // refused while building the URL, before the call options are read
				assert.Zero(t, info.Attempts, "nothing was sent")
			}
			assert.Equal(t, openpay.ClassFault, openpay.ClassOf(err))
		})
	}
	page, err := k.c.Charges.ListPage(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, page, "no charge was made")
	customers, err := k.c.Customers.ListPage(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, customers, 1)

	// Genuine U+FFFD, the text \ufffd and other unusual but valid text are
	// sent as they are, and come back unchanged.
	for _, desc := range []string{"Pedido \ufffd 3", `Pedido \ufffd 4`, `Pedido \\\ufffd 5`, "Señor ☕ \u2028 6"} {
		ch, err := k.c.Charges.Create(ctx, charge(func(r *openpay.CardCharge) {
			r.Description = desc
			r.Metadata = openpay.Metadata{"nota \ufffd": desc}
		}))
		require.NoError(t, err, desc)
		assert.Equal(t, desc, ch.Description)
		got, err := k.c.Charges.Get(ctx, ch.ID)
		require.NoError(t, err)
		assert.Equal(t, desc, got.Description)
		assert.Equal(t, desc, got.Metadata["nota \ufffd"])
	}
	found, err := k.c.Charges.ListPage(ctx, &openpay.TransactionListParams{OrderID: "pedido-\ufffd-ñ"})
	require.NoError(t, err)
	assert.Empty(t, found)
}
