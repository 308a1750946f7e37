package openpaytest_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/datadir/datadirtest"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A server started again on the data directory of one that was closed has
// its customers, charges and balance; one started without naming the saved
// merchant is refused.
func TestWithDataDirKeepsTheState(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const id, key = "mdatadir000000000001", "sk_00000000000000000000000000000001"
	srv, err := openpaytest.Start(openpaytest.WithDataDir(dir), openpaytest.WithMerchant(id, key, ""))
	require.NoError(t, err)
	ctx := context.Background()
	c, err := openpay.New(id, key, openpay.WithBaseURL(srv.URL), openpay.WithDefaultClientIP("203.0.113.9"))
	require.NoError(t, err)
	cu, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Ana", Email: "ana@example.com"})
	require.NoError(t, err)
	ch, err := c.Customer(cu.ID).Charges.Create(ctx, openpay.StoreCharge{Amount: openpay.MustAmount("100"), Description: "x"})
	require.NoError(t, err)
	_, err = srv.PayCharge(ch.ID)
	require.NoError(t, err)
	balance := srv.Balance()
	srv.Close()

	_, err = openpaytest.Start(openpaytest.WithDataDir(dir))
	assert.ErrorContains(t, err, "WithMerchant")

	again := openpaytest.NewServer(t, openpaytest.WithDataDir(dir), openpaytest.WithMerchant(id, key, ""))
	c, err = openpay.New(id, key, openpay.WithBaseURL(again.URL))
	require.NoError(t, err)
	got, err := c.Customers.Get(ctx, cu.ID)
	require.NoError(t, err)
	assert.Equal(t, "Ana", got.Name)
	gotCharge, err := c.Customer(cu.ID).Charges.Get(ctx, ch.ID)
	require.NoError(t, err)
	assert.Equal(t, openpay.TransactionStatusCompleted, gotCharge.Status)
	assert.Equal(t, balance.String(), again.Balance().String())
}

// A data directory whose store has a damaged meta page (page 0 or 1,
// zeros or random bytes) is an error of Start, never a panic.
func TestWithDataDirDamagedMetaPage(t *testing.T) {
	t.Parallel()
	const id, key = "mdatadir000000000002", "sk_00000000000000000000000000000002"
	for page := range 2 {
		for _, random := range []bool{false, true} {
			t.Run(fmt.Sprintf("page %d random %v", page, random), func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				srv, err := openpaytest.Start(openpaytest.WithDataDir(dir), openpaytest.WithMerchant(id, key, ""))
				require.NoError(t, err)
				srv.Close()
				require.NoError(t, datadirtest.OverwritePage(filepath.Join(dir, "refserver.db"), page, random))

				_, err = openpaytest.Start(openpaytest.WithDataDir(dir), openpaytest.WithMerchant(id, key, ""))
				require.Error(t, err)
				assert.Contains(t, err.Error(), fmt.Sprintf("meta page %d is damaged", page))
			})
		}
	}
}
