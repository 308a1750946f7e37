package fault

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/apierr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Check takes exactly one kind, normalizes the method and the count, and
// names the refused field as the caller calls it.
func TestCheck(t *testing.T) {
	t.Parallel()
	f, e := Check(Fault{Method: "post", Path: "/v1/{merchant_id}/charges", ErrorCode: 1004}, WireNames)
	require.Nil(t, e)
	assert.Equal(t, "POST", f.Method)
	assert.Equal(t, 1, f.Count)

	for _, tt := range []struct {
		f    Fault
		code openpay.Code
		want string
	}{
		{Fault{Path: "/x", ErrorCode: 1004}, openpay.ErrBadRequest, "'method'"},
		{Fault{Method: "GET", Path: "/x", Operation: "Charges.Get", ErrorCode: 1004}, openpay.ErrBadRequest, "not both"},
		{Fault{Method: "GET", Path: "/x"}, openpay.ErrInvalidParameter, "exactly one"},
		{Fault{Method: "GET", Path: "/x", ErrorCode: 1004, Page: 502}, openpay.ErrInvalidParameter, "exactly one"},
		{Fault{Method: "GET", Path: "/x", Page: 302}, openpay.ErrInvalidParameter, "'page'"},
		{Fault{Method: "GET", Path: "/x", Drop: DropAfter, Acted: true}, openpay.ErrInvalidParameter, "'acted'"},
		{Fault{Method: "GET", Path: "/x", ErrorCode: 42}, openpay.ErrInvalidParameter, "documented"},
		{Fault{Method: "GET", Path: "/x", Delay: MaxDelay + 1}, openpay.ErrInvalidParameter, "'delay_ms' must be from 1 to 300000"},
		{Fault{Method: "GET", Path: "/x", Drop: "later"}, openpay.ErrInvalidParameter, "'drop'"},
		{Fault{Method: "GET", Path: "/x", ErrorCode: 1004, Count: MaxCount + 1}, openpay.ErrInvalidParameter, "'count'"},
		{Fault{Method: "GET", Path: "/" + string(make([]byte, MaxPath)), ErrorCode: 1004}, openpay.ErrInvalidParameter, "'path'"},
	} {
		_, e := Check(tt.f, WireNames)
		if assert.NotNil(t, e, tt.want) {
			assert.Equal(t, tt.code, e.Code, tt.want)
			assert.Contains(t, e.Description, tt.want)
		}
	}
	_, e = Check(Fault{Method: "GET", Path: "/x", Delay: -time.Second}, GoNames)
	if assert.NotNil(t, e) {
		assert.Contains(t, e.Description, "Fault.Delay must be from 1ms to 5m0s")
	}
	_, e = Wire{Method: "GET", Path: "/x", DelayMS: MaxDelay.Milliseconds() + 1}.Fault()
	assert.NotNil(t, e, "a delay out of range is refused before it becomes a duration")
	w, e := Wire{Method: "GET", Path: "/x", DelayMS: 1500, Count: 2}.Fault()
	require.Nil(t, e)
	assert.Equal(t, 1500*time.Millisecond, w.Delay)
	assert.Equal(t, int64(1500), w.Wire().DelayMS)
}

func TestSamePattern(t *testing.T) {
	t.Parallel()
	assert.True(t, SamePattern("/v1/{merchant_id}/charges/{transaction_id}", "/v1/{m}/charges/{id}"))
	assert.False(t, SamePattern("/v1/{merchant_id}/charges/{transaction_id}", "/v1/{m}/charges"))
	assert.False(t, SamePattern("/v1/{merchant_id}/charges", "/v1/{m}/customers"))
	assert.False(t, SamePattern("/v1/{merchant_id}/charges", "/v1/m1/charges"), "a concrete segment is no placeholder")
}

type route struct{ name string }

// The oldest matching fault applies, counts down, and is gone after its
// last request; an owner's faults are matched against its own paths only
// and are never consulted for another owner.
func TestSetTakesInOrderAndByOwner(t *testing.T) {
	t.Parallel()
	charges, customers := &route{"charges"}, &route{"customers"}
	var s Set[*route]
	assert.Nil(t, s.Take(Request[*route]{Route: charges, Method: "POST"}), "nothing armed")
	require.Nil(t, armErr(s.Arm(&Armed[*route]{Fault: Fault{Method: "POST", Count: 2, ErrorCode: 1004}, Route: charges})))
	require.Nil(t, armErr(s.Arm(&Armed[*route]{Fault: Fault{Method: "POST", Count: 1, ErrorCode: 1000}, Route: charges, Owner: "m1"})))
	require.Nil(t, armErr(s.Arm(&Armed[*route]{Fault: Fault{Method: "POST", Count: 1, Page: 502}, Route: customers, Owner: "m2", Exact: "/v1/m2/customers"})))
	ids := func(fs []Fault) (out []string) {
		for _, f := range fs {
			out = append(out, f.ID+":"+strconv.Itoa(f.Count))
		}
		return out
	}
	assert.Equal(t, []string{"f1:2", "f2:1", "f3:1"}, ids(s.List(nil)))
	m1 := "m1"
	assert.Equal(t, []string{"f2:1"}, ids(s.List(&m1)))
	assert.ElementsMatch(t, []string{"", "m1"}, s.Consulted("m1"))
	assert.NotContains(t, s.Consulted("m1"), "m2")

	req := Request[*route]{Route: charges, Method: "POST", Path: "/v1/m1/charges", Owner: "m1"}
	assert.Equal(t, "f1", s.Take(req).ID, "the oldest match applies")
	assert.Equal(t, "f1", s.Take(req).ID)
	assert.Equal(t, "f2", s.Take(req).ID, "f1 is spent, m1's own comes next")
	assert.Nil(t, s.Take(req))

	other := Request[*route]{Route: customers, Method: "POST", Path: "/v1/m2/customers/x", Owner: "m2"}
	assert.Nil(t, s.Take(other), "an exact path matches that path only")
	other.Path = "/v1/m2/customers"
	assert.Equal(t, 502, s.Take(other).Page)
	assert.False(t, s.Any())
}

// A per-call fault fails every attempt of the calls it takes, and is
// gone after the last attempt of its last call; an operation fault never
// fails the server's own controls.
func TestSetPerCallAndOperation(t *testing.T) {
	t.Parallel()
	rt := &route{"charges"}
	var s Set[*route]
	require.Nil(t, armErr(s.Arm(&Armed[*route]{Fault: Fault{Operation: "Charges.Create", PerCall: true, Count: 1, ErrorCode: 1004}})))
	attempt := func(call string, n int, simulation bool) *Fault {
		h := http.Header{}
		h.Set(OperationHeader, "Charges.Create")
		h.Set(CallHeader, call+" "+strconv.Itoa(n)+" 3")
		return s.Take(Request[*route]{Route: rt, Simulation: simulation, Method: "POST", Header: h})
	}
	assert.Nil(t, attempt("c1", 1, true), "the server's controls are never failed")
	assert.NotNil(t, attempt("c1", 1, false))
	assert.NotNil(t, attempt("c1", 2, false), "a retry of the call taken fails too")
	assert.Empty(t, s.List(nil), "no call left to take")
	assert.NotNil(t, attempt("c1", 3, false))
	assert.False(t, s.Any(), "gone after the call's last attempt")
	assert.Nil(t, attempt("c2", 1, false))
}

// Arm refuses past the bounds, with 1003.
func TestSetBounds(t *testing.T) {
	t.Parallel()
	rt := &route{"plans"}
	var s Set[*route]
	for range MaxPerOwner {
		require.Nil(t, armErr(s.Arm(&Armed[*route]{Fault: Fault{Method: "GET", ErrorCode: 1000}, Route: rt, Owner: "m1"})))
	}
	_, e := s.Arm(&Armed[*route]{Fault: Fault{Method: "GET", ErrorCode: 1000}, Route: rt, Owner: "m1"})
	if assert.NotNil(t, e) {
		assert.Equal(t, openpay.ErrInvalidParameter, e.Code)
	}
	for i := MaxPerOwner; i < MaxArmed; i++ {
		require.Nil(t, armErr(s.Arm(&Armed[*route]{Fault: Fault{Method: "GET", ErrorCode: 1000}, Route: rt})))
	}
	assert.NotNil(t, armErr(s.Arm(&Armed[*route]{Fault: Fault{Method: "GET", ErrorCode: 1000}, Route: rt, Owner: "m2"})))
	m1 := "m1"
	s.Clear(&m1)
	assert.Len(t, s.List(nil), MaxArmed-MaxPerOwner)
	s.Clear(nil)
	assert.False(t, s.Any())
}

// The answers a fault puts in place of the server's.
func TestAnswers(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "Internal server error", (&Fault{ErrorCode: openpay.ErrInternalServer}).ErrorObject().Description)
	assert.Equal(t, "Scheduled", (&Fault{ErrorCode: 1004, Description: "Scheduled"}).ErrorObject().Description)
	assert.Equal(t, "The request failed with error 3001", (&Fault{ErrorCode: 3001}).ErrorObject().Description)

	rec := httptest.NewRecorder()
	WritePage(rec, http.StatusBadGateway)
	assert.Equal(t, http.StatusBadGateway, rec.Code)
	assert.Equal(t, "text/html; charset=utf-8", rec.Header().Get("Content-Type"))
	assert.Contains(t, rec.Body.String(), "<title>502 Bad Gateway</title>")

	d := Discard()
	d.Header().Set("X", "y")
	n, err := d.Write([]byte("gone"))
	assert.Equal(t, 4, n)
	assert.NoError(t, err)
}

// armErr keeps the refusal of Set.Arm.
func armErr(_ Fault, e *apierr.Error) *apierr.Error { return e }
