package journal

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
)

// A journal opened with no Logger sends its records to the SDK's logger
// (the client's WithLogger): the worker's settle of an attempt a dead
// process left is one record there, with the kind, order_id, amount,
// state and transaction id, and nothing logged holds card data or the key.
func TestWorkerLogsEachSettleThroughTheSDKsLogger(t *testing.T) {
	forEach(t, func(t *testing.T, e engine) {
		srv := openpaytest.NewServer(t, openpaytest.WithMerchant(testMerchant, testPrivate, testPublic))
		ctx := context.Background()
		var logs syncBuffer
		c := newClient(t, srv.URL, openpay.WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
		p := newPayer(t, c)
		clk := &clock{}
		j, err := Open(ctx, e.open(t), c, Options{Now: clk.now})
		if err != nil {
			t.Fatal(err)
		}
		a, err := chargeAttempt(p.charge("log-1", "42.00"))
		if err != nil {
			t.Fatal(err)
		}
		if claimed, _, err := j.claim(ctx, &a); err != nil || !claimed {
			t.Fatalf("claim: %v, %v", claimed, err)
		}
		clk.advance(2 * time.Minute) // the claimant died
		if n, err := (&Worker{Journal: j}).Drain(ctx); err != nil || n != 1 {
			t.Fatalf("drain: %d, %v", n, err)
		}
		got := attemptOf(t, j, "log-1")
		if got.State != StateMade || got.TransactionID == "" {
			t.Fatalf("attempt %+v", got)
		}
		text := logs.String()
		var settles []string
		for line := range strings.SplitSeq(text, "\n") {
			if strings.Contains(line, `msg="journal: attempt settled"`) {
				settles = append(settles, line)
			}
		}
		if len(settles) != 1 {
			t.Fatalf("%d settle records in the SDK's logger, want 1:\n%s", len(settles), text)
		}
		for _, want := range []string{"kind=charge", "order_id=log-1", "amount=42.00", "state=made", "transaction_id=" + got.TransactionID} {
			if !strings.Contains(settles[0], want) {
				t.Errorf("the settle record lacks %q: %s", want, settles[0])
			}
		}
		if !strings.Contains(text, "level=DEBUG") {
			t.Errorf("the SDK's own records are missing: the logger is not the client's:\n%s", text)
		}
		for _, secret := range []string{"4111111111111111", "411111111111", testPrivate, "cvv2"} {
			if strings.Contains(text, secret) {
				t.Errorf("the logs hold %q:\n%s", secret, text)
			}
		}
	})
}

// attemptOf reads the attempt under order.
func attemptOf(t *testing.T, j *Journal, order string) Attempt {
	t.Helper()
	a, err := j.Attempt(context.Background(), order)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
