package openpay

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// WithHeader adds headers to any call, Do's and the services', beside the
// SDK's own, which it cannot replace; Do sends below the merchant or,
// with a leading "/", below the host.
func TestWithHeaderAndDoPaths(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := newScriptServer(t, reply(200, `{"id":"x1"}`, "X-Trace", "back"))
	c, err := New(tpMerchant, tpKey, WithBaseURL(srv.URL), WithRetryPolicy(fastPolicy(0)))
	require.NoError(t, err)

	var info ResponseInfo
	_, err = c.Customers.Get(ctx, "c1", WithHeader("x-trace-id", "t-1"), WithHeader("X-Trace-Id", "t-2"), WithResponseInfo(&info))
	require.NoError(t, err)
	require.NoError(t, c.Do(ctx, http.MethodPost, "/v1/cards/validate-bin?bin=411111", map[string]int{"n": 1}, nil, WithHeader("X-Extra", "e")))
	require.NoError(t, c.Do(ctx, http.MethodDelete, "customers/c1", nil, nil))
	for _, name := range []string{"authorization", "User-Agent", "x-forwarded-for", "Content-Type"} {
		require.ErrorContains(t, c.Do(ctx, http.MethodGet, "customers", nil, nil, WithHeader(name, "v")), "sets itself")
	}
	require.Error(t, c.Do(ctx, http.MethodGet, "customers", nil, nil, WithHeader("X-A", "v\r\nX-B: w")))

	seen := srv.requests()
	require.Len(t, seen, 3, "the refused calls sent nothing")
	assert.Equal(t, []string{"t-1", "t-2"}, seen[0].Header.Values("X-Trace-Id"))
	assert.Equal(t, "Basic "+tpBasic, seen[0].Header.Get("Authorization"))
	assert.Equal(t, "back", info.Header.Get("X-Trace"))

	assert.Equal(t, http.MethodPost, seen[1].Method)
	assert.Equal(t, "/v1/cards/validate-bin", seen[1].Path)
	assert.Equal(t, "bin=411111", seen[1].RawQuery)
	assert.JSONEq(t, `{"n":1}`, seen[1].Body)
	assert.Equal(t, "e", seen[1].Header.Get("X-Extra"))

	assert.Equal(t, http.MethodDelete, seen[2].Method)
	assert.Equal(t, "/v1/"+tpMerchant+"/customers/c1", seen[2].Path)
	assert.Empty(t, seen[2].Header.Values("X-Extra"), "a header is for one call only")
}
