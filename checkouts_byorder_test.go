package openpay_test

import (
	"context"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A shop whose Checkouts.Create answer was lost finds its link by order_id,
// as it finds charges, payouts and transfers; a checkout's own id is not an
// order_id.
func TestCheckoutsGetByOrderID(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 3, 2, 10, 0, 0, 0, time.FixedZone("CST", -6*3600))
	k := newContract(t, openpaytest.WithClock(start))
	ctx := context.Background()
	co, err := k.c.Checkouts.Create(ctx, openpay.CheckoutRequest{Amount: openpay.MustAmount("250.00"), Description: "Order 78",
		OrderID: "order-78", RedirectURL: "https://shop.example/back", ExpirationDate: start.Add(time.Hour)})
	require.NoError(t, err)

	got, err := k.c.Checkouts.GetByOrderID(ctx, "order-78")
	require.NoError(t, err)
	assert.Equal(t, co.ID, got.ID)

	_, err = k.c.Checkouts.GetByOrderID(ctx, "order-79")
	require.ErrorIs(t, err, openpay.ErrNotFound)
	_, err = k.c.Checkouts.GetByOrderID(ctx, co.ID)
	require.ErrorIs(t, err, openpay.ErrNotFound, "an id is not an order_id")
	_, err = k.c.Checkouts.GetByOrderID(ctx, "")
	require.ErrorIs(t, err, openpay.ErrInvalidArgument)

	page, err := k.c.Checkouts.ListPage(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, page, 1, "one checkout for the order")
}
