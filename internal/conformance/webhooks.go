package conformance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// deliveryWait bounds how long a replay waits for the target to deliver
// an event the cassette recorded: the gateway delivers within seconds.
const deliveryWait = 10 * time.Second

// receiver takes the target's webhook deliveries during a replay.
type receiver struct {
	url string // base URL: scheme and host
	srv *http.Server

	mu     sync.Mutex
	queue  [][]byte      // deliveries received and not yet compared
	signal chan struct{} // closed and replaced at each delivery
}

// needsReceiver reports whether a cassette recorded webhook deliveries or
// registered a webhook on the recorder.
func needsReceiver(c *Cassette) bool {
	for _, e := range c.Exchanges {
		if e.Operation == OperationWebhook || strings.Contains(string(e.Request), WebhookPath) {
			return true
		}
	}
	return false
}

func newReceiver() (*receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("webhook receiver: %w", err)
	}
	h := &receiver{url: "http://" + ln.Addr().String(), signal: make(chan struct{})}
	h.srv = &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := h.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			// Nothing to do: deliveries stop arriving, and the replay
			// reports them as not delivered.
			return
		}
	}()
	return h, nil
}

func (h *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, maxBody))
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	h.queue = append(h.queue, body)
	close(h.signal)
	h.signal = make(chan struct{})
	h.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

func (h *receiver) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = h.srv.Shutdown(ctx)
}

// take removes and returns the first delivery whose type is typ (any when
// typ is empty), waiting for it until ctx ends or deliveryWait passes.
func (h *receiver) take(ctx context.Context, typ string) ([]byte, bool) {
	deadline := time.NewTimer(deliveryWait)
	defer deadline.Stop()
	for {
		h.mu.Lock()
		for i, b := range h.queue {
			if typ == "" || eventType(b) == typ {
				h.queue = append(h.queue[:i:i], h.queue[i+1:]...)
				h.mu.Unlock()
				return b, true
			}
		}
		signal := h.signal
		h.mu.Unlock()
		select {
		case <-signal:
		case <-deadline.C:
			return nil, false
		case <-ctx.Done():
			return nil, false
		}
	}
}

// eventType is the "type" member of an event body, "" when there is none.
func eventType(b []byte) string {
	v, ok := decodeJSON(b)
	if !ok {
		return ""
	}
	m, _ := v.(map[string]any)
	s, _ := m["type"].(string)
	return s
}

// delivery compares a recorded webhook delivery with the next delivery of
// the same event type the target sent.
func (r *replayer) delivery(ctx context.Context, e Exchange) []Difference {
	typ := eventType(e.Request)
	got, ok := r.hook.take(ctx, typ)
	if !ok {
		what := "a delivery"
		if typ != "" {
			what = "a delivery of " + quote(typ)
		}
		return []Difference{{Path: "$", Kind: "not delivered", Recorded: what, Replayed: fmt.Sprintf("none within %s", deliveryWait)}}
	}
	var rec, gv any
	recJSON, gotJSON := false, false
	if v, _, ok := scrubJSON(e.Request); ok {
		rec, recJSON = decodeJSON(v)
	}
	if v, _, ok := scrubJSON(got); ok {
		gv, gotJSON = decodeJSON(v)
	}
	if !recJSON || !gotJSON {
		if recJSON != gotJSON {
			return []Difference{{Path: "$", Kind: "type", Recorded: bodyKind(recJSON, ""), Replayed: bodyKind(gotJSON, "")}}
		}
		return nil
	}
	r.learn("", rec, gv, nil)
	c := &comparer{ids: r.ids, hosts: r.hosts}
	return c.compare(http.StatusOK, http.StatusOK, rec, gv)
}
