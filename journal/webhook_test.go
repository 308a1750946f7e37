package journal

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
)

// webhookChild serves the webhook with the journal's event store. Its
// handler records each event it handles in the table webhook_effects of
// the same database; with JOURNAL_FAIL_FIRST set it fails the first time.
func webhookChild(ctx context.Context, j *Journal, db *sql.DB) error {
	var calls atomic.Int32
	failFirst := os.Getenv("JOURNAL_FAIL_FIRST") != ""
	handle := j.Events().Handler(func(ctx context.Context, ev *openpay.WebhookEvent) error {
		if calls.Add(1) == 1 && failFirst {
			return errors.New("the handler failed")
		}
		time.Sleep(50 * time.Millisecond) // long enough for deliveries to meet
		_, err := db.ExecContext(ctx, `INSERT INTO webhook_effects (tx, pid) VALUES ($1, $2)`, ev.Transaction.ID, os.Getpid())
		return err
	})
	h, err := openpay.WebhookHandler("hook", "secret", handle)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Println("URL http://" + ln.Addr().String())
	return http.Serve(ln, h)
}

const webhookEvent = `{"type":"charge.succeeded","event_date":"2026-11-20T10:00:00-06:00",
 "transaction":{"id":"trwebhook0000000001","amount":100.00,"currency":"MXN","method":"card","status":"completed",
 "transaction_type":"charge","operation_type":"in","order_id":"o-77","description":"order 77","creation_date":"2026-11-20T10:00:00-06:00"}}`

// deliver posts the event to url and returns the status.
func deliver(t *testing.T, url string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(webhookEvent))
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth("hook", "secret")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func effects(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM webhook_effects`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func startWebhookChildren(t *testing.T, e engine, n int, settings map[string]string) (*sql.DB, []string) {
	t.Helper()
	db := e.open(t)
	if _, err := Open(context.Background(), db, newClient(t, "http://127.0.0.1:1"), Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE webhook_effects (tx TEXT NOT NULL, pid BIGINT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	g := &gateway{URL: "http://127.0.0.1:1"}
	var urls []string
	for range n {
		p := startChild(t, e, g, "webhook", settings)
		urls = append(urls, strings.TrimPrefix(p.await(t, "URL "), "URL "))
	}
	return db, urls
}

// The same event delivered to four processes at once is handled once;
// delivered again later, it is not handled again.
func TestWebhookFleetHandlesOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes; skipped with -short")
	}
	forEach(t, func(t *testing.T, e engine) {
		db, urls := startWebhookChildren(t, e, 4, nil)
		var wg sync.WaitGroup
		statuses := make([]int, len(urls))
		start := make(chan struct{})
		for i, u := range urls {
			wg.Go(func() {
				<-start
				statuses[i] = deliver(t, u)
			})
		}
		close(start)
		wg.Wait()
		if n := effects(t, db); n != 1 {
			t.Fatalf("handled %d times (answers %v)", n, statuses)
		}
		ok := 0
		for _, s := range statuses {
			if s == http.StatusOK {
				ok++
			}
		}
		if ok == 0 {
			t.Fatalf("no delivery was answered 200: %v", statuses)
		}
		// The gateway delivers again wherever it was not answered 200.
		for _, u := range urls {
			if s := deliver(t, u); s != http.StatusOK {
				t.Fatalf("a later delivery answered %d", s)
			}
		}
		if n := effects(t, db); n != 1 {
			t.Fatalf("handled %d times after the deliveries again", n)
		}
	})
}

// A handler that fails lets go of the event: the next delivery handles it,
// once.
func TestWebhookFailedHandlerRedelivered(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes; skipped with -short")
	}
	forEach(t, func(t *testing.T, e engine) {
		db, urls := startWebhookChildren(t, e, 1, map[string]string{"FAIL_FIRST": "1"})
		if s := deliver(t, urls[0]); s != http.StatusInternalServerError {
			t.Fatalf("a failing handler answered %d", s)
		}
		if n := effects(t, db); n != 0 {
			t.Fatalf("handled %d times", n)
		}
		for range 3 {
			if s := deliver(t, urls[0]); s != http.StatusOK {
				t.Fatalf("the delivery again answered %d", s)
			}
		}
		if n := effects(t, db); n != 1 {
			t.Fatalf("handled %d times", n)
		}
	})
}

// Without Handler (the store given to openpay.Deduplicate), a failed
// handler's claim expires after Claim; handled events are pruned after
// their age.
func TestEventClaimExpiresAndPrunes(t *testing.T) {
	forEach(t, func(t *testing.T, e engine) {
		clk := &clock{}
		j, err := Open(context.Background(), e.open(t), newClient(t, "http://127.0.0.1:1"), Options{Now: clk.now})
		if err != nil {
			t.Fatal(err)
		}
		store := j.Events()
		store.Claim = time.Minute
		calls := 0
		fail := true
		handle := openpay.Deduplicate(store, func(ctx context.Context, ev *openpay.WebhookEvent) error {
			calls++
			if fail {
				return errors.New("failed")
			}
			return nil
		})
		var ev openpay.WebhookEvent
		if err := ev.UnmarshalJSON([]byte(webhookEvent)); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if err := handle(ctx, &ev); err == nil {
			t.Fatal("a failed handler succeeded")
		}
		fail = false
		if err := handle(ctx, &ev); !errors.Is(err, ErrEventInProgress) {
			t.Fatalf("within the claim: %v", err)
		}
		clk.advance(2 * time.Minute)
		if err := handle(ctx, &ev); err != nil {
			t.Fatal(err)
		}
		if err := handle(ctx, &ev); err != nil || calls != 2 {
			t.Fatalf("handled again: %v, %d calls", err, calls)
		}
		clk.advance(48 * time.Hour)
		p, err := j.Prune(ctx, 24*time.Hour)
		if err != nil || p.Events != 1 {
			t.Fatalf("pruned %+v, %v", p, err)
		}
	})
}
