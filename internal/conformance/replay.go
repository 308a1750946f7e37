package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/openpay-go/openpay/internal/cardnum"
	"github.com/openpay-go/openpay/internal/clabe"
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
	// Advance, when not nil, moves the target's fake clock forward; Now is
	// the recorded time that clock stands for when the replay starts
	// (start the target's clock at the cassette's Header.Recorded and Now
	// is where it stands). Before each exchange the replay moves the clock
	// to the time the exchange started at recording, so that a list
	// filtered by the recording day, or a card that expired since, answers
	// as it did. Nil: the target's own clock.
	Advance func(time.Duration) error
	Now     time.Time
	// WholeLists compares list answers whole. By default a list is
	// compared on the objects the cassette saw (created, or got, in an
	// earlier exchange), in order: the sandbox account held objects before
	// the recording that the target does not.
	WholeLists bool
}

// FakeClock is a target's fake clock (openpaytest.Server's).
type FakeClock interface {
	Now() time.Time
	AdvanceClock(time.Duration) (time.Time, error)
}

// FollowClock sets Advance and Now from a fake clock.
func (t *Target) FollowClock(c FakeClock) {
	t.Now = c.Now()
	t.Advance = func(d time.Duration) error {
		_, err := c.AdvanceClock(d)
		return err
	}
}

// Replay sends the cassette's requests to the target in order and compares
// each answer with the recorded one (see [Compare]); allow (nil for none)
// excuses known differences.
//
// Ids are mapped: an id first seen in a recorded answer (a member "id" or
// "..._id" whose recorded and replayed values differ, and that the request
// did not send) stands for the id the target answered at the same place,
// and is replaced by it wherever it appears later: in path segments, query
// values and request body strings, whole values only. The first sight
// checks the id's shape. The recorded merchant id (the {merchant_id} of
// the recorded paths) stands for the target's merchant; the keys are the
// target's, but for a key the upstream refused (Credential), replayed as a
// key of the same kind the target does not know. A card number of the
// cassette is replaced by a sandbox test card of the same class and brand
// (cardnum.ClassCard) in the recorded layout, a scrubbed security code by
// one of the recorded layout (or one that fits the card), a CLABE by one of
// the same bank, length and validity, and scrubbed webhook credentials by
// placeholders.
//
// The error is for a replay that could not run (a target that is no URL,
// a cassette with no exchange: [ErrNoExchanges], ctx done); whatever the
// target answers, or its silence, is reported as differences.
func Replay(ctx context.Context, c *Cassette, t Target, allow *Allowlist) (*Report, error) {
	if len(c.Exchanges) == 0 {
		return nil, ErrNoExchanges
	}
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

	r := &replayer{t: t, client: &nc, ids: map[string]string{}, seen: map[string]bool{}, seenTarget: map[string]bool{},
		hosts: map[string]bool{strings.ToLower(target.Host): true}}
	if up, err := url.Parse(c.Header.Upstream); err == nil && up.Host != "" {
		r.hosts[strings.ToLower(up.Host)] = true
	}
	if needsReceiver(c) {
		hook, err := newReceiver()
		if err != nil {
			return nil, err
		}
		defer hook.close()
		r.hook = hook
	}
	now := t.Now
	rep := newReport()
	rep.Warnings = append(rep.Warnings, c.Warnings...)
	for _, e := range c.Exchanges {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if t.Advance != nil && !e.Started.IsZero() && e.Started.After(now) {
			if err := t.Advance(e.Started.Sub(now)); err != nil {
				return nil, fmt.Errorf("moving the target's clock to exchange #%d: %w", e.Seq, err)
			}
			now = e.Started
		}
		op := e.Operation
		if op == "" {
			op = "(unmatched " + e.Method + ")"
		}
		_, params := ops.lookup(e.Method, e.Path)
		if m := params["merchant_id"]; m != "" {
			r.ids[m] = t.MerchantID
		}
		var (
			diffs  []Difference
			answer json.RawMessage
		)
		if e.Operation == OperationWebhook {
			diffs = r.delivery(ctx, e)
		} else {
			diffs, answer = r.one(ctx, e)
		}
		for i := range diffs {
			diffs[i].Seq, diffs[i].Operation = e.Seq, op
		}
		rep.add(e, op, diffs, answer, allow)
	}
	return rep, nil
}

// replayClientIP is the payer's address a replay sends where the recorded
// request had one: an address reserved for documentation (RFC 5737).
const replayClientIP = "192.0.2.1"

// refusedKey is the key part of a key a replay sends where the upstream
// refused the recorded one: well formed, and no merchant's.
const refusedKey = "00000000000000000000000000000000"

type replayer struct {
	t      Target
	client *http.Client
	ids    map[string]string
	// seen are the recorded ids of the objects earlier answers held, and
	// seenTarget the target's: list answers are compared on them.
	seen, seenTarget map[string]bool
	hosts            map[string]bool
	// hook receives the target's webhook deliveries; nil when the
	// cassette has none.
	hook *receiver
}

// one replays an exchange and returns its differences, and the target's
// answer when its status differs from the recorded one (the error object
// says why).
func (r *replayer) one(ctx context.Context, e Exchange) ([]Difference, json.RawMessage) {
	if e.Withheld != "" {
		return []Difference{{Path: "$", Kind: "not replayed", Recorded: "withheld at recording: " + e.Withheld, Replayed: "nothing"}}, nil
	}
	u, err := url.Parse(r.t.URL)
	if err != nil {
		return []Difference{{Path: "$", Kind: "not replayed", Recorded: "a request", Replayed: err.Error()}}, nil
	}
	// A target with a base path (a server behind a prefix) keeps it.
	p, raw := r.mapPath(e.Path)
	base := strings.TrimSuffix(u.Path, "/")
	u.Path, u.RawPath = base+p, base+raw
	u.RawQuery = r.mapQuery(e)
	var body io.Reader
	sent := map[string]bool{}
	switch {
	case len(e.Request) > 0:
		v, _ := decodeJSON(e.Request)
		collectStrings(v, "$", e, sent)
		b, err := marshalLine(r.mapBody(v, "$", "", e, nil))
		if err != nil {
			return []Difference{{Path: "$", Kind: "not replayed", Recorded: "a JSON body", Replayed: err.Error()}}, nil
		}
		body = bytes.NewReader(b)
	case e.RequestText != "":
		body = strings.NewReader(e.RequestText)
	}
	if q, err := url.ParseQuery(e.Query); err == nil {
		for k, vs := range q {
			for _, v := range vs {
				collectStrings(v, "?"+k, e, sent)
			}
		}
	}
	// What the merchant chose (an order_id, a description) is sent as
	// recorded; ids the replay maps are not the merchant's choice.
	for v := range sent {
		if _, mapped := r.ids[v]; mapped {
			delete(sent, v)
		}
	}
	req, err := http.NewRequestWithContext(ctx, e.Method, u.String(), body)
	if err != nil {
		return []Difference{{Path: "$", Kind: "not replayed", Recorded: "a request", Replayed: err.Error()}}, nil
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if e.ClientIP {
		req.Header.Set("X-Forwarded-For", replayClientIP)
	}
	if e.Auth == "private" || e.Auth == "public" {
		key := r.t.PrivateKey
		if e.Auth == "public" {
			key = r.t.PublicKey
		}
		if e.Credential == credentialRefused {
			// The target's prefix (sk_, pk_), and no key of its.
			key = key[:min(3, len(key))] + refusedKey
		}
		req.SetBasicAuth(key, "")
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return []Difference{{Path: StatusPath, Kind: "status", Recorded: fmt.Sprint(e.Status), Replayed: "no answer"}}, nil
	}
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	resp.Body.Close()
	if err != nil {
		return []Difference{{Path: StatusPath, Kind: "status", Recorded: fmt.Sprint(e.Status), Replayed: "an unreadable answer"}}, nil
	}
	var why json.RawMessage
	if resp.StatusCode != e.Status {
		// Scrubbed like the cassette: the target echoes nothing secret,
		// but a report is no place to check that.
		if v, _, ok := scrubJSON(answer); ok {
			why = v
		} else if len(answer) > 0 {
			why, _ = json.Marshal(quote(scrubText(string(answer))))
		}
	}
	// The recorded answer is scrubbed again: a cassette of an older
	// recorder kept what is scrubbed now (a CLABE).
	var rec any
	recJSON := false
	if v, _, ok := scrubJSON(e.Response); ok {
		rec, recJSON = decodeJSON(v)
	}
	var got any
	gotJSON := false
	if v, _, ok := scrubJSON(answer); ok {
		// Scrubbed as the recorded answer was, so that both sides compare
		// alike (a CLABE, a metadata secret).
		got, gotJSON = decodeJSON(v)
	}
	if !recJSON || !gotJSON {
		// Not JSON on one side at least: the status and the kind of body.
		d := Compare(e.Status, resp.StatusCode, nil, nil, r.ids, r.hosts)
		if recJSON != gotJSON {
			d = append(d, Difference{Path: "$", Kind: "type", Recorded: bodyKind(recJSON, e.ResponseType), Replayed: bodyKind(gotJSON, resp.Header.Get("Content-Type"))})
		}
		return d, why
	}
	c := &comparer{ids: r.ids, hosts: r.hosts, sent: sent, learn: func(rec, got any) { r.learn("", rec, got, sent) }}
	if !r.t.WholeLists {
		rec, got = r.known(rec, got)
		if diffs, ok := c.list(e.Status, resp.StatusCode, rec, got); ok {
			return diffs, why
		}
	}
	r.learn("", rec, got, sent)
	return c.compare(e.Status, resp.StatusCode, rec, got), why
}

// collectStrings adds every string a recorded request body holds to set,
// but for the masked values the replay replaces (cards, CLABEs).
func collectStrings(v any, path string, e Exchange, set map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			collectStrings(c, childPath(path, k), e, set)
		}
	case []any:
		for i, c := range x {
			collectStrings(c, indexPath(path, i), e, set)
		}
	case string:
		_, card := e.Cards[path]
		_, isClabe := e.Clabes[path]
		if x != "" && x != Scrubbed && !card && !isClabe {
			set[x] = true
		}
	}
}

// known keeps, of a list answer (an array on both sides), the objects the
// cassette saw in earlier answers, in order: the recorded ones whose ids
// earlier recorded answers held, the target's whose ids earlier replayed
// answers held. Other answers are returned as they are.
func (r *replayer) known(rec, got any) (any, any) {
	ra, ok1 := rec.([]any)
	ga, ok2 := got.([]any)
	if !ok1 || !ok2 {
		return rec, got
	}
	keep := func(in []any, seen map[string]bool) []any {
		out := make([]any, 0, len(in))
		for _, el := range in {
			if o, ok := el.(map[string]any); ok {
				if id, _ := o["id"].(string); id != "" && !seen[id] {
					continue
				}
			}
			out = append(out, el)
		}
		return out
	}
	return keep(ra, r.seen), keep(ga, r.seenTarget)
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

// mapQuery rebuilds a recorded query string for the target, parameter by
// parameter in the recorded order: mapped ids, and test values for what was
// scrubbed, as in bodies.
func (r *replayer) mapQuery(e Exchange) string {
	if e.Query == "" {
		return ""
	}
	parts := strings.Split(e.Query, "&")
	for i, p := range parts {
		k, v, _ := strings.Cut(p, "=")
		name, err1 := url.QueryUnescape(k)
		val, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			continue
		}
		mapped := r.mapBody(val, "?"+name, name, e, nil)
		parts[i] = url.QueryEscape(name) + "=" + url.QueryEscape(fmt.Sprint(mapped))
	}
	return strings.Join(parts, "&")
}

// mapBody rebuilds a recorded request body for the target: mapped ids,
// test cards for the masked numbers, codes, CLABEs and credentials for what
// was scrubbed. parent is the object holding v (to find a security code's
// card).
func (r *replayer) mapBody(v any, path, member string, e Exchange, parent map[string]any) any {
	switch x := v.(type) {
	case map[string]any:
		// Cards first, so that a security code finds its card's number.
		for k, child := range x {
			if _, ok := e.Cards[childPath(path, k)]; ok {
				x[k] = r.mapBody(child, childPath(path, k), k, e, x)
			}
		}
		for k, child := range x {
			if _, ok := e.Cards[childPath(path, k)]; !ok {
				x[k] = r.mapBody(child, childPath(path, k), k, e, x)
			}
		}
		return x
	case []any:
		for i, child := range x {
			x[i] = r.mapBody(child, indexPath(path, i), "", e, nil)
		}
		return x
	case string:
		if c, ok := e.Cards[path]; ok {
			return standInCard(c, x)
		}
		if c, ok := e.Clabes[path]; ok {
			return standInClabe(c)
		}
		if r.hook != nil && strings.Contains(x, WebhookPath) {
			if u, err := url.Parse(x); err == nil && u.IsAbs() {
				return r.hook.url + u.Path
			}
		}
		if x != Scrubbed {
			return r.mapID(x)
		}
		if c, ok := e.Codes[path]; ok {
			return fromLayout(c.Layout, "1234567890")
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

// fromLayout fills a layout (Card.Layout, Code.Layout) with digits, in
// order: each 9 takes the next digit (digits repeat when the layout has
// more 9s), each a the letter a; other characters stay.
func fromLayout(layout, digits string) string {
	var b strings.Builder
	i := 0
	for _, c := range layout {
		switch c {
		case '9':
			b.WriteByte(digits[i%len(digits)])
			i++
		case 'a':
			b.WriteByte('a')
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// standInCard returns the test card that stands in for a recorded card, in
// the recorded layout.
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
	if c.Layout != "" && n != "" {
		// Of another length than the test card, the number is refused as
		// the recorded one was.
		n = fromLayout(c.Layout, n)
	}
	return n
}

// standInClabe returns a CLABE of the recorded bank, length and validity.
func standInClabe(c Clabe) string {
	s := clabe.New(c.Bank, "180", 1232424)
	if s == "" {
		s = clabe.New("012", "180", 1232424)
	}
	if !c.Valid {
		last := (s[len(s)-1]-'0'+1)%10 + '0'
		s = s[:len(s)-1] + string(rune(last))
	}
	for len(s) < c.Length {
		s += "0"
	}
	if c.Length > 0 && len(s) > c.Length {
		s = s[:c.Length]
	}
	return s
}

// learn maps the ids of a recorded answer to the replayed answer's at the
// same places: members "id" or "..._id" whose values differ, first sight
// only, but for request ids (each answer's own) and the values the request
// sent (an order_id comes back as sent: it is compared, not mapped). The
// "id"s of both answers are seen objects.
func (r *replayer) learn(member string, rec, got any, sent map[string]bool) {
	switch x := rec.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return
		}
		if id, ok := x["id"].(string); ok && id != "" {
			r.seen[id] = true
		}
		if id, ok := g["id"].(string); ok && id != "" {
			r.seenTarget[id] = true
		}
		for k, v := range x {
			if gv, ok := g[k]; ok {
				r.learn(k, v, gv, sent)
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			return
		}
		for i := 0; i < len(x) && i < len(g); i++ {
			r.learn("", x[i], g[i], sent)
		}
	case string:
		g, ok := got.(string)
		if !ok || x == "" || g == "" || x == g || !(member == "id" || strings.HasSuffix(member, "_id")) || member == "request_id" || sent[x] || sent[g] {
			return
		}
		if _, seen := r.ids[x]; !seen {
			r.ids[x] = g
		}
	}
}
