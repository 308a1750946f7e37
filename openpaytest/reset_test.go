package openpaytest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Reset forgets what tests made and keeps the merchants, the added one
// too; with Deterministic, the same calls give the same ids again.
func TestReset(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t, openpaytest.Deterministic(), openpaytest.WithMerchantBalance(openpay.MustAmount("50")))
	ctx := context.Background()
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(srv.URL), openpay.WithDefaultClientIP("203.0.113.9"))
	require.NoError(t, err)
	other, err := srv.AddMerchant("", "", "")
	require.NoError(t, err)
	oc, err := openpay.New(other.MerchantID, other.PrivateKey, openpay.WithBaseURL(srv.URL))
	require.NoError(t, err)

	create := func() string {
		cu, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com"})
		require.NoError(t, err)
		_, err = oc.Customers.Create(ctx, openpay.CustomerRequest{Name: "Bea", Email: "bea@example.com"})
		require.NoError(t, err)
		return cu.ID
	}
	first := create()
	_, err = srv.AdvanceClock(48 * time.Hour)
	require.NoError(t, err)
	require.NoError(t, srv.InjectFault(openpaytest.Fault{Method: "GET", Path: "/v1/{merchant_id}/customers", Delay: time.Minute}))

	require.NoError(t, srv.Reset())
	assert.Empty(t, srv.Faults())
	assert.True(t, srv.Now().Equal(openpaytest.DefaultStart), "clock at %v", srv.Now())
	assert.Equal(t, "50.00", srv.Balance().String())
	for _, client := range []*openpay.Client{c, oc} {
		page, err := client.Customers.ListPage(ctx, nil)
		require.NoError(t, err)
		assert.Empty(t, page)
	}
	assert.Equal(t, first, create(), "the same id after the reset")
}

// InjectFault arms typed faults; a refused one is an *openpay.Error.
func TestInjectFault(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t)
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(srv.URL))
	require.NoError(t, err)
	err = srv.InjectFault(openpaytest.Fault{Method: "POST", Path: "/v1/{merchant_id}/nothing", ErrorCode: openpay.ErrInternalServer})
	var oe *openpay.Error
	require.True(t, errors.As(err, &oe), "%v", err)
	assert.Equal(t, openpay.ErrInvalidParameter, oe.Code)

	require.NoError(t, srv.InjectFault(openpaytest.Fault{Method: "GET", Path: "/v1/{merchant_id}/customers", Count: 2, Drop: openpaytest.DropBefore}))
	require.Len(t, srv.Faults(), 1)
	assert.Equal(t, 2, srv.Faults()[0].Count)
	srv.ClearFaults()
	assert.Empty(t, srv.Faults())
	_, err = c.Customers.ListPage(context.Background(), nil)
	assert.NoError(t, err, "disarmed")
}
