package conformance

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/openpay-go/openpay/internal/cardnum"
)

// Target is where a replay sends its requests: a reference server (or any
// server of the gateway's API) and the merchant it acts as there.
type Target struct {
	// URL is the base URL (http://127.0.0.1:port).
	URL        string
	MerchantID string
	PrivateKey string
	// PublicKey authenticates the requests recorded with a public key.
	PublicKey string
	// Client sends the requests; nil means a client with a one-minute
	// timeout. Redirects are never followed.
	Client *http.Client
}

// Replay sends the cassette's requests to the target in order and compares
// each answer with the recorded one (see [Compare]); allow (nil for none)
// excuses known differences.
//
// Ids are mapped: an id first seen in a recorded answer (a member "id" or
// "..._id" whose recorded and replayed values differ) stands for the id the
// target answered at the same place, and is replaced by it wherever it
// appears later: in path segments, query values and request body strings,
// whole values only. The recorded merchant id (the {merchant_id} of the
// recorded paths) stands for the target's merchant; the keys are the
// target's. A card number of the cassette is replaced by a sandbox test
// card of the same class and brand (cardnum.ClassCard), a scrubbed
// security code by one that fits that card, and scrubbed webhook
// credentials by placeholders.
//
// The error is for a replay that could not run (a target that is no URL,
// ctx done); whatever the target answers, or its silence, is reported as
// differences.
func Replay(ctx context.Context, c *Cassette, t Target, allow *Allowlist) (*Report, error) {
	target, err := url.Parse(t.URL)
	if err != nil || !target.IsAbs() {
		return nil, fmt.Errorf("replay target %q: want an absolute base URL", t.URL)
	}
	client := t.Client
	if client == nil {
		client = &http.Client{Timeout: time.Minute}
	}
	nc := *client
	nc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	ops := newOperations()
	defer ops.close()

	r := &replayer{t: t, client: &nc, ids: map[string]string{}, hosts: map[string]bool{strings.ToLower(target.Host): true}}
	if up, err := url.Parse(c.Header.Upstream); err == nil && up.Host != "" {
		r.hosts[strings.ToLower(up.Host)] = true
	}
	rep := newReport()
	for _, e := range c.Exchanges {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		op := e.Operation
		if op == "" {
			op = "(unmatched " + e.Method + ")"
		}
		_, params := ops.lookup(e.Method, e.Path)
		if m := params["merchant_id"]; m != "" {
			r.ids[m] = t.MerchantID
		}
		diffs := r.one(ctx, e)
		for i := range diffs {
			diffs[i].Seq, diffs[i].Operation = e.Seq, op
		}
		rep.add(op, diffs, allow)
	}
	return rep, nil
}

// replayClientIP is the payer's address a replay sends where the recorded
// request had one: an address reserved for documentation (RFC 5737).
const replayClientIP = "192.0.2.1"

type replayer struct {
	t      Target
	client *http.Client
	ids    map[string]string
	hosts  map[string]bool
}

// one replays an exchange and returns its differences.
func (r *replayer) one(ctx context.Context, e Exchange) []Difference {
	if e.Withheld != "" {
		return []Difference{{Path: "$", Kind: "not replayed", Recorded: "withheld at recording: " + e.Withheld, Replayed: "nothing"}}
	}
	u, err := url.Parse(r.t.URL)
	if err != nil {
		return []Difference{{Path: "$", Kind: "not replayed", Recorded: "a request", Replayed: err.Error()}}
	}
	// A target with a base path (a server behind a prefix) keeps it.
	p, raw := r.mapPath(e.Path)
	base := strings.TrimSuffix(u.Path, "/")
	u.Path, u.RawPath = base+p, base+raw
	u.RawQuery = r.mapQuery(e.Query)
	var body io.Reader
	switch {
	case len(e.Request) > 0:
		v, _ := decodeJSON(e.Request)
		b, err := marshalLine(r.mapBody(v, "$", "", e.Cards, nil))
		if err != nil {
			return []Difference{{Path: "$", Kind: "not replayed", Recorded: "a JSON body", Replayed: err.Error()}}
		}
		body = bytes.NewReader(b)
	case e.RequestText != "":
		body = strings.NewReader(e.RequestText)
	}
	req, err := http.NewRequestWithContext(ctx, e.Method, u.String(), body)
	if err != nil {
		return []Difference{{Path: "$", Kind: "not replayed", Recorded: "a request", Replayed: err.Error()}}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if e.ClientIP {
		req.Header.Set("X-Forwarded-For", replayClientIP)
	}
	switch e.Auth {
	case "private":
		req.SetBasicAuth(r.t.PrivateKey, "")
	case "public":
		req.SetBasicAuth(r.t.PublicKey, "")
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return []Difference{{Path: StatusPath, Kind: "status", Recorded: fmt.Sprint(e.Status), Replayed: "no answer"}}
	}
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	resp.Body.Close()
	if err != nil {
		return []Difference{{Path: StatusPath, Kind: "status", Recorded: fmt.Sprint(e.Status), Replayed: "an unreadable answer"}}
	}
	rec, recJSON := decodeJSON(e.Response)
	got, gotJSON := decodeJSON(answer)
	if !recJSON || !gotJSON {
		// Not JSON on one side at least: the status and the kind of body.
		d := Compare(e.Status, resp.StatusCode, nil, nil, r.ids, r.hosts)
		if recJSON != gotJSON {
			d = append(d, Difference{Path: "$", Kind: "type", Recorded: bodyKind(recJSON, e.ResponseType), Replayed: bodyKind(gotJSON, resp.Header.Get("Content-Type"))})
		}
		return d
	}
	r.learn("", rec, got)
	return Compare(e.Status, resp.StatusCode, rec, got, r.ids, r.hosts)
}

func bodyKind(isJSON bool, contentType string) string {
	if isJSON {
		return "JSON"
	}
	if contentType == "" {
		return "no body"
	}
	return contentType
}

// mapID returns the target's id for a recorded one, or s itself.
func (r *replayer) mapID(s string) string {
	if m, ok := r.ids[s]; ok {
		return m
	}
	return s
}

// mapPath maps each segment of an escaped path; it returns the path and its
// escaped form.
func (r *replayer) mapPath(raw string) (string, string) {
	segs := strings.Split(raw, "/")
	plain := make([]string, len(segs))
	for i, s := range segs {
		v, err := url.PathUnescape(s)
		if err != nil {
			v = s
		}
		v = r.mapID(v)
		plain[i] = v
		segs[i] = url.PathEscape(v)
	}
	return strings.Join(plain, "/"), strings.Join(segs, "/")
}

func (r *replayer) mapQuery(raw string) string {
	if raw == "" {
		return ""
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return raw
	}
	for k, vs := range q {
		for i, v := range vs {
			vs[i] = r.mapID(v)
		}
		q[k] = vs
	}
	return q.Encode()
}

// mapBody rebuilds a recorded request body for the target: mapped ids,
// test cards for the masked numbers, codes and credentials for what was
// scrubbed. parent is the object holding v (to find a security code's
// card).
func (r *replayer) mapBody(v any, path, member string, cards map[string]Card, parent map[string]any) any {
	switch x := v.(type) {
	case map[string]any:
		// Cards first, so that a security code finds its card's number.
		for k, child := range x {
			if _, ok := cards[childPath(path, k)]; ok {
				x[k] = r.mapBody(child, childPath(path, k), k, cards, x)
			}
		}
		for k, child := range x {
			if _, ok := cards[childPath(path, k)]; !ok {
				x[k] = r.mapBody(child, childPath(path, k), k, cards, x)
			}
		}
		return x
	case []any:
		for i, child := range x {
			x[i] = r.mapBody(child, indexPath(path, i), "", cards, nil)
		}
		return x
	case string:
		if c, ok := cards[path]; ok {
			return standInCard(c, x)
		}
		if x != Scrubbed {
			return r.mapID(x)
		}
		switch member {
		case "cvv2", "cvv", "cvc", "security_code":
			number, _ := parent["card_number"].(string)
			if len(number) == 15 {
				return "1234"
			}
			return "123"
		case "user", "username":
			return "replay-user"
		case "password":
			return "replay-password"
		}
		return x
	}
	return v
}

// standInCard returns the test card that stands in for a recorded card.
func standInCard(c Card, masked string) string {
	class := c.Class
	if class == ClassLuhnInvalid {
		class = cardnum.ClassApproved
	}
	tc, ok := cardnum.ClassCard(class, c.Brand, masked)
	if !ok {
		tc, _ = cardnum.ClassCard(cardnum.ClassApproved, c.Brand, masked)
	}
	n := tc.Number
	if c.Class == ClassLuhnInvalid && n != "" {
		last := (n[len(n)-1]-'0'+1)%10 + '0'
		n = n[:len(n)-1] + string(rune(last))
	}
	return n
}

// learn maps the ids of a recorded answer to the replayed answer's at the
// same places: members "id" or "..._id" whose values differ, first sight
// only.
func (r *replayer) learn(member string, rec, got any) {
	switch x := rec.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return
		}
		for k, v := range x {
			if gv, ok := g[k]; ok {
				r.learn(k, v, gv)
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			return
		}
		for i := 0; i < len(x) && i < len(g); i++ {
			r.learn("", x[i], g[i])
		}
	case string:
		g, ok := got.(string)
		if !ok || x == "" || g == "" || x == g || !(member == "id" || strings.HasSuffix(member, "_id")) {
			return
		}
		if _, seen := r.ids[x]; !seen {
			r.ids[x] = g
		}
	}
}
