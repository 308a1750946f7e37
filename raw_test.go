package openpay_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A merchant reaches operations through Client.Do as the services would:
// with the key, the merchant's path, the kit's books changed exactly once,
// the SDK's errors, and nothing sent for a path that leaves the API.
func TestDoReachesTheAPI(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := openpaytest.NewServer(t)
	c, err := srv.Client()
	require.NoError(t, err)

	var cust openpay.Customer
	require.NoError(t, c.Do(ctx, http.MethodPost, "customers",
		map[string]any{"name": "Ana", "email": "ana@example.com"}, &cust))
	require.NotEmpty(t, cust.ID)
	got, err := c.Customers.Get(ctx, cust.ID)
	require.NoError(t, err)
	assert.Equal(t, "Ana", got.Name)

	// A read decoded into a map, the answer's headers kept.
	var raw map[string]any
	var info openpay.ResponseInfo
	require.NoError(t, c.Do(ctx, http.MethodGet, "customers/"+cust.ID, nil, &raw, openpay.WithResponseInfo(&info)))
	assert.Equal(t, "ana@example.com", raw["email"])
	assert.Equal(t, 200, info.HTTPStatus)
	assert.Contains(t, info.Header.Get("Content-Type"), "application/json")

	// A charge through Do, with the payer's IP as Charges.Create sends it,
	// makes one transaction for its order_id.
	body := map[string]any{"method": "store", "amount": 150, "description": "raw", "order_id": "raw-1"}
	var oe *openpay.Error
	var tx openpay.Transaction
	require.NoError(t, c.Do(ctx, http.MethodPost, "charges", body, &tx, openpay.WithClientIP("203.0.113.9")))
	assert.Equal(t, "raw-1", tx.OrderID)
	page, err := c.Charges.ListPage(ctx, &openpay.TransactionListParams{OrderID: "raw-1"})
	require.NoError(t, err)
	assert.Len(t, page, 1, "one transaction for the order_id")

	// A query rides on the path.
	var list []map[string]any
	require.NoError(t, c.Do(ctx, http.MethodGet, "customers?limit=1", nil, &list))
	assert.Len(t, list, 1)

	// The gateway's errors are the SDK's.
	err = c.Do(ctx, http.MethodGet, "charges/tr_missing000000000000", nil, &raw)
	require.ErrorIs(t, err, openpay.ErrNotFound)
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, http.MethodGet, oe.Method)

	// A path that would leave the API, a bad method or a reserved header
	// fail before sending; a public key may not use Do for a private call.
	for _, tc := range []struct{ got, want error }{
		{c.Do(ctx, http.MethodGet, "customers/../charges", nil, &raw), openpay.ErrInvalidID},
		{c.Do(ctx, http.MethodGet, "customers/a%2fb", nil, &raw), openpay.ErrInvalidID},
		{c.Do(ctx, "TRACE", "customers", nil, &raw), openpay.ErrInvalidArgument},
		{c.Do(ctx, http.MethodGet, "customers", nil, &list, openpay.WithHeader("Authorization", "Basic x")), openpay.ErrInvalidArgument},
	} {
		bad := tc.got
		require.ErrorIs(t, bad, tc.want)
		assert.False(t, errors.As(bad, &oe), "refused before sending: %v", bad)
	}
	pub, err := srv.PublicClient()
	require.NoError(t, err)
	require.ErrorIs(t, pub.Do(ctx, http.MethodGet, "customers", nil, &list), openpay.ErrPublicKeyNotAllowed)
	var zero *openpay.Client
	require.ErrorIs(t, zero.Do(ctx, http.MethodGet, "customers", nil, &list), openpay.ErrZeroClient)

	all, err := c.Customers.ListPage(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, all, 1, "the failed calls created nothing")
}
