package refserver

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hangGuard bounds the calls of the gate tests: a call that waits this
// long is stuck behind a slow client, which is what they check never
// happens (a guard against hanging, not a measure of speed).
const hangGuard = 10 * time.Second

// firstRead tells when the server first reads a request's body.
type firstRead struct {
	io.ReadCloser
	once    sync.Once
	reading chan struct{}
}

func (f *firstRead) Read(p []byte) (int, error) {
	f.once.Do(func() { close(f.reading) })
	return f.ReadCloser.Read(p)
}

// guardedCall sends a request with a hang guard and returns its status.
func guardedCall(t *testing.T, method, url, key string) int {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	require.NoError(t, err)
	if key != "" {
		req.SetBasicAuth(key, "")
	}
	res, err := (&http.Client{Timeout: hangGuard}).Do(req)
	require.NoError(t, err, "%s %s waited on another client's body", method, url)
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	return res.StatusCode
}

// Clients that send their bodies slowly hold nobody up: while the server
// waits for the rest of a customer's body (an API call) and of a payment
// form posted without credentials (a hosted page), a reset, /_health and
// another merchant's call are all answered; the slow requests, finished
// afterwards, are answered too (the customer is made after the reset).
func TestSlowBodyDoesNotHoldTheServer(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	checkout := newCheckout(t, env, "/checkouts")["id"].(string)
	var mu sync.Mutex
	reading := map[string]chan struct{}{"api": make(chan struct{}), "page": make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		ch := reading[r.Header.Get("X-Slow")]
		mu.Unlock()
		if ch != nil {
			r.Body = &firstRead{ReadCloser: r.Body, reading: ch}
		}
		env.s.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	auth := base64.StdEncoding.EncodeToString([]byte(env.m.PrivateKey + ":"))
	slow := []struct {
		name, head, body string
	}{
		{"api", "POST /v1/" + env.m.ID + "/customers HTTP/1.1\r\nAuthorization: Basic " + auth +
			"\r\nContent-Type: application/json", `{"name": "Slow", "email": "slow@example.com"}`},
		{"page", "POST /checkout/" + env.m.ID + "/" + checkout + " HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded",
			"token=x&method=card"},
	}
	conns := make([]net.Conn, len(slow))
	for i, sl := range slow {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		require.NoError(t, err)
		defer conn.Close()
		conns[i] = conn
		_, err = fmt.Fprintf(conn, "%s\r\nHost: x\r\nX-Slow: %s\r\nContent-Length: %d\r\n\r\n%s",
			sl.head, sl.name, len(sl.body), sl.body[:1])
		require.NoError(t, err)
		select {
		case <-reading[sl.name]: // the server waits on the rest of the body
		case <-time.After(hangGuard):
			t.Fatalf("the server never read the %s body", sl.name)
		}
	}

	assert.Equal(t, http.StatusNoContent, guardedCall(t, http.MethodPost, srv.URL+"/_simulate/reset", env.m.PrivateKey))
	assert.Equal(t, http.StatusOK, guardedCall(t, http.MethodGet, srv.URL+"/_health", ""))
	assert.Equal(t, http.StatusOK, guardedCall(t, http.MethodGet, srv.URL+"/v1/"+env.other.ID+"/customers", env.other.PrivateKey))

	// The slow bodies are still open: finish them.
	for i, sl := range slow {
		_, err := io.WriteString(conns[i], sl.body[1:])
		require.NoError(t, err)
		require.NoError(t, conns[i].SetReadDeadline(time.Now().Add(hangGuard)))
		res, err := http.ReadResponse(bufio.NewReader(conns[i]), nil)
		require.NoError(t, err, sl.name)
		data, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if sl.name == "api" {
			assert.Equal(t, http.StatusOK, res.StatusCode, "body: %s", data)
		} else {
			assert.Equal(t, http.StatusNotFound, res.StatusCode, "the reset erased the checkout: %s", data)
		}
	}
	assert.Len(t, listIDs(t, env.get("/customers")), 1, "made after the reset")
}

// A webhook receiver that holds the verification event holds only the
// webhook's creation: a reset, /_health and another merchant's call are
// answered meanwhile; the creation then answers 201, and the webhook,
// made before the reset, is gone with it.
func TestSlowWebhookReceiverDoesNotHoldTheServer(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	arrived, release := make(chan struct{}), make(chan struct{})
	var releaseOnce sync.Once
	letGo := func() { releaseOnce.Do(func() { close(release) }) }
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		close(arrived)
		<-release
	}))
	t.Cleanup(receiver.Close)
	t.Cleanup(letGo) // before the receiver closes, should the test fail early
	created := make(chan resp, 1)
	go func() {
		created <- env.post("/webhooks", map[string]any{"url": receiver.URL, "event_types": []string{"charge.succeeded"}})
	}()
	select {
	case <-arrived:
	case <-time.After(hangGuard):
		t.Fatal("the verification event never arrived")
	}
	assert.Equal(t, http.StatusNoContent, guardedCall(t, http.MethodPost, env.srv.URL+"/_simulate/reset", env.m.PrivateKey))
	assert.Equal(t, http.StatusOK, guardedCall(t, http.MethodGet, env.srv.URL+"/_health", ""))
	assert.Equal(t, http.StatusOK, guardedCall(t, http.MethodGet, env.srv.URL+"/v1/"+env.other.ID+"/webhooks", env.other.PrivateKey))
	select {
	case r := <-created:
		t.Fatalf("the creation answered (%d) before its receiver did", r.status)
	default:
	}
	letGo()
	o := requireOK(t, <-created, http.StatusCreated)
	assert.Equal(t, "unverified", o["status"], "the verification came back after the reset: nothing is recorded")
	assert.Empty(t, listIDs(t, env.get("/webhooks")))
}
