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

// A client that sends its body slowly holds nobody up: while the server
// waits for the rest of a customer's body, a reset, /_health and another
// merchant's call are all answered, and the slow request, finished
// afterwards, is answered too (in the state after the reset).
func TestSlowBodyDoesNotHoldTheServer(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, Options{})
	reading := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Slow") != "" {
			r.Body = &firstRead{ReadCloser: r.Body, reading: reading}
		}
		env.s.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	body := `{"name": "Slow", "email": "slow@example.com"}`
	auth := base64.StdEncoding.EncodeToString([]byte(env.m.PrivateKey + ":"))
	_, err = fmt.Fprintf(conn, "POST /v1/%s/customers HTTP/1.1\r\nHost: x\r\nAuthorization: Basic %s\r\n"+
		"Content-Type: application/json\r\nX-Slow: 1\r\nContent-Length: %d\r\n\r\n%s",
		env.m.ID, auth, len(body), body[:1])
	require.NoError(t, err)
	select {
	case <-reading: // the server waits on the rest of the body
	case <-time.After(hangGuard):
		t.Fatal("the server never read the body")
	}

	assert.Equal(t, http.StatusNoContent, guardedCall(t, http.MethodPost, srv.URL+"/_simulate/reset", env.m.PrivateKey))
	assert.Equal(t, http.StatusOK, guardedCall(t, http.MethodGet, srv.URL+"/_health", ""))
	assert.Equal(t, http.StatusOK, guardedCall(t, http.MethodGet, srv.URL+"/v1/"+env.other.ID+"/customers", env.other.PrivateKey))

	// The slow body is still open: finish it.
	_, err = io.WriteString(conn, body[1:])
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(hangGuard)))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	assert.Equal(t, http.StatusOK, res.StatusCode, "body: %s", data)
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
