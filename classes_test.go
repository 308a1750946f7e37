package openpay_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClassOf(t *testing.T) {
	t.Parallel()
	gw := func(code openpay.Code) error {
		return &openpay.Error{Code: code, Category: code.Category(), HTTPStatus: code.HTTPStatus(), Method: "POST", Path: "/v1/m/charges"}
	}
	dup := gw(openpay.ErrDuplicateOrderID).(*openpay.Error)
	tests := []struct {
		name string
		err  error
		want openpay.ErrorClass
	}{
		{"nil", nil, openpay.ClassNone},
		{"no answer", &openpay.TransportError{Method: "GET", Path: "/v1/m/charges", Attempts: 3, MayHaveReached: true, Err: context.DeadlineExceeded}, openpay.ClassTemporary},
		{"no connection", &openpay.TransportError{Method: "POST", Path: "/v1/m/charges", Attempts: 3, Err: context.Canceled}, openpay.ClassTemporary},
		// An unknown outcome has its own class, whatever the answer behind
		// it (issue 31): a merchant following ClassOf settles it first.
		{"unknown outcome after a duplicate", &openpay.OutcomeUnknownError{Method: "POST", OrderID: "o1", Err: dup}, openpay.ClassUnknown},
		{"503 after a POST was sent", gw(openpay.ErrServiceUnavailable), openpay.ClassUnknown},
		{"500 after a POST was sent", gw(openpay.ErrInternalServer), openpay.ClassUnknown},
		{"no answer to a POST", &openpay.TransportError{Method: "POST", Path: "/v1/m/charges", Attempts: 1, MayHaveReached: true, Err: context.Canceled}, openpay.ClassUnknown},
		{"the order_id is someone else's", &openpay.OrderConflictError{OrderID: "o1", Existing: &openpay.Transaction{ID: "tr1"}, Err: dup}, openpay.ClassFault},
		{"unusable 200", &openpay.Error{HTTPStatus: 200, Method: "GET", Path: "/v1/m/charges/tr1"}, openpay.ClassTemporary},
		{"proxy 502", &openpay.Error{HTTPStatus: 502, Method: "GET"}, openpay.ClassTemporary},
		{"429", &openpay.Error{HTTPStatus: 429, Method: "GET"}, openpay.ClassTemporary},
		{"unknown gateway-category code", &openpay.Error{Code: 3999, Category: openpay.CategoryGateway, HTTPStatus: 402}, openpay.ClassDeclined},
		{"unknown 4xx", &openpay.Error{HTTPStatus: 418}, openpay.ClassFault},
		{"refused before sending", openpay.ErrClientIPRequired, openpay.ClassFault},
		{"wrapped by the caller", fmt.Errorf("checkout: %w", gw(openpay.ErrCardStolen)), openpay.ClassDeclined},
	}
	declined := []openpay.Code{1007, 2004, 2005, 2006, 2007, 2008, 2009, 3001, 3002, 3003, 3004, 3005, 3006, 3008, 3009, 3010, 3011, 3012}
	temporary := []openpay.Code{1000, 1004}
	fault := []openpay.Code{1001, 1002, 1003, 1005, 1006, 1008, 1009, 1010, 2001, 2002, 2003, 4001}
	for _, set := range []struct {
		codes []openpay.Code
		want  openpay.ErrorClass
	}{{declined, openpay.ClassDeclined}, {temporary, openpay.ClassTemporary}, {fault, openpay.ClassFault}} {
		for _, code := range set.codes {
			require.True(t, code.Documented(), "%d", code)
			err := gw(code)
			if set.want == openpay.ClassTemporary {
				// A server error is temporary on a read; after a POST
				// was sent it is an unknown outcome (above).
				err.(*openpay.Error).Method = "GET"
			}
			tests = append(tests, struct {
				name string
				err  error
				want openpay.ErrorClass
			}{fmt.Sprint(code), err, set.want})
		}
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, openpay.ClassOf(tt.err), "%s: %v", tt.name, tt.err)
	}
	assert.Len(t, declined, 18)
	assert.Equal(t, 32, len(declined)+len(temporary)+len(fault), "every documented code has its class")
}

// Through the reference server: a declined card is a decline, a missing
// resource a fault.
func TestClassOfAgainstServer(t *testing.T) {
	t.Parallel()
	srv := openpaytest.NewServer(t)
	c, err := openpay.New(srv.MerchantID, srv.PrivateKey, openpay.WithBaseURL(srv.URL), openpay.WithDefaultClientIP("203.0.113.5"))
	require.NoError(t, err)
	ctx := context.Background()
	_, err = c.Charges.Create(ctx, openpay.InlineCardCharge{Card: openpay.CardDetails{HolderName: "Ana", CardNumber: openpaytest.EmulatorCardDeclined,
		CVV2: "123", ExpirationMonth: "12", ExpirationYear: "40"}, Amount: openpay.MustAmount("10"), Description: "d"})
	assert.Equal(t, openpay.ClassDeclined, openpay.ClassOf(err), "%v", err)
	_, err = c.Charges.Get(ctx, "trnotthere1")
	assert.Equal(t, openpay.ClassFault, openpay.ClassOf(err), "%v", err)
	_, err = c.Charges.Create(ctx, openpay.StoreCharge{Amount: openpay.MustAmount("10"), Description: "d"}, openpay.WithClientIP("not an ip"))
	assert.Equal(t, openpay.ClassFault, openpay.ClassOf(err), "%v", err)
	assert.Equal(t, "declined", openpay.ClassDeclined.String())
}
