package openpay

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	secretNumber = "4111111111111111"
	secretCVV    = "739"
)

// cardValues returns a value of every request type that holds card data,
// filled with secretNumber and secretCVV where the type has them.
func cardValues() []any {
	// No pointer field is set: fmt prints a nested pointer as an address,
	// whose hex digits could hold the security code by chance.
	card := CardDetails{CardNumber: secretNumber, CVV2: secretCVV, HolderName: "Juan Perez", ExpirationMonth: "12", ExpirationYear: "30"}
	payoutCard := PayoutCardDetails{CardNumber: secretNumber, HolderName: "Juan Perez", BankCode: "002"}
	return []any{
		CardRequest{Card: card, DeviceSessionID: "sid"},
		card,
		payoutCard,
		CardUpdateRequest{CVV2: secretCVV, HolderName: "Juan Perez"},
		CardCharge{SourceID: "kqgykn96i7bcs1wwhvgw", CVV2: secretCVV, Amount: MustAmount("10.00"), Description: "Order 42"},
		InlineCardCharge{Card: card, Amount: MustAmount("10.00"), Description: "Order 42", Metadata: Metadata{"sku": "A-1"}},
		InlineCardPayout{Card: payoutCard, Amount: MustAmount("10.00"), Description: "Weekly"},
		SubscriptionRequest{PlanID: "pbi4kb8hpb64x0uud2eb", Card: &card},
		SubscriptionUpdateRequest{Card: &card},
	}
}

// holdsNumber reports whether a value of cardValues carries a card number
// (the others carry only a security code).
func holdsNumber(v any) bool {
	switch v.(type) {
	case CardUpdateRequest, CardCharge:
		return false
	}
	return true
}

// Every generated type with a card number or a security code, or holding a
// type that has one, is in cardValues: a request type added to openapi.yaml
// (a group variant, say) cannot slip through without its masking methods.
func TestEveryCardTypeIsMasked(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "types.gen.go", nil, 0)
	require.NoError(t, err)
	// Responses carry the number as the gateway masks it.
	responses := map[string]bool{"Card": true}
	var found []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range g.Specs {
			ts, ok := spec.(*ast.TypeSpec)
			if !ok || responses[ts.Name.Name] {
				continue
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				continue
			}
			for _, field := range st.Fields.List {
				typ := strings.TrimPrefix(typeName(field.Type), "*")
				names := make([]string, 0, len(field.Names))
				for _, n := range field.Names {
					names = append(names, n.Name)
				}
				if slices.Contains(names, "CardNumber") || slices.Contains(names, "CVV2") || typ == "CardDetails" || typ == "PayoutCardDetails" {
					found = append(found, ts.Name.Name)
					break
				}
			}
		}
	}
	var covered []string
	for _, v := range cardValues() {
		covered = append(covered, reflect.TypeOf(v).Name())
		_, ok := v.(wireBody)
		assert.True(t, ok, "%T has a wire form", v)
	}
	assert.ElementsMatch(t, found, covered)
}

func typeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.StarExpr:
		return "*" + typeName(e.X)
	}
	return ""
}

// wrappings puts v where a program might: behind a pointer, in a slice, a
// map, a []any, and in fields (value and pointer) of the program's own
// struct, alone and in a slice of such structs.
func wrappings(v any) map[string]any {
	rv := reflect.ValueOf(v)
	t := rv.Type()
	ptr := reflect.New(t)
	ptr.Elem().Set(rv)
	slice := reflect.MakeSlice(reflect.SliceOf(t), 0, 2)
	slice = reflect.Append(slice, rv, rv)
	m := reflect.MakeMap(reflect.MapOf(reflect.TypeFor[string](), t))
	m.SetMapIndex(reflect.ValueOf("k"), rv)
	user := reflect.New(reflect.StructOf([]reflect.StructField{
		{Name: "Order", Type: reflect.TypeFor[string](), Tag: `json:"order"`},
		{Name: "Req", Type: t, Tag: `json:"req"`},
		{Name: "Ptr", Type: ptr.Type()},
	})).Elem()
	user.Field(0).SetString("42")
	user.Field(1).Set(rv)
	user.Field(2).Set(ptr)
	users := reflect.MakeSlice(reflect.SliceOf(user.Type()), 0, 1)
	users = reflect.Append(users, user)
	return map[string]any{
		"value": v, "pointer": ptr.Interface(), "slice": slice.Interface(), "map": m.Interface(), "[]any": []any{v, ptr.Interface()},
		"user struct": user.Interface(), "pointer to user struct": user.Addr().Interface(), "slice of user structs": users.Interface(),
	}
}

// printings renders v in every way a program might print, encode or log it.
func printings(t *testing.T, v any) map[string]string {
	out := map[string]string{}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%10.3v", "%-+v"} {
		out[verb] = fmt.Sprintf(verb, v)
	}
	out["Sprint"] = fmt.Sprint(v)
	out["Sprintln"] = fmt.Sprintln(v, v)
	b, err := json.Marshal(v)
	require.NoError(t, err)
	out["json"] = string(b)
	b, err = json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	out["json indented"] = string(b)
	// No timestamps: their digits could hold the security code by chance.
	opts := &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}
	for name, h := range map[string]func(io.Writer) slog.Handler{
		"slog text": func(w io.Writer) slog.Handler { return slog.NewTextHandler(w, opts) },
		"slog JSON": func(w io.Writer) slog.Handler { return slog.NewJSONHandler(w, opts) },
	} {
		var buf bytes.Buffer
		l := slog.New(h(&buf))
		l.Info("request", "req", v)
		l.Info("request", slog.Any("req", v), slog.Group("g", "req", v))
		l.With("req", v).Info("request")
		out[name] = buf.String()
	}
	return out
}

// Card data never shows through fmt, encoding/json or slog, wherever the
// value sits.
// pointerAddress matches a pointer as fmt prints it.
var pointerAddress = regexp.MustCompile(`0x[0-9a-f]{6,}`)

func TestCardDataNeverPrinted(t *testing.T) {
	t.Parallel()
	forbidden := []string{secretNumber, secretNumber[:12], hex.EncodeToString([]byte(secretNumber)),
		secretCVV, hex.EncodeToString([]byte(secretCVV)), strings.ToUpper(hex.EncodeToString([]byte(secretCVV)))}
	for _, v := range cardValues() {
		for where, w := range wrappings(v) {
			for how, text := range printings(t, w) {
				// A pointer's address (%#v prints nested pointers as
				// (*T)(0xc000123739)) holds no data, but its digits may
				// spell the security code by chance.
				text = pointerAddress.ReplaceAllString(text, "0x(address)")
				for _, s := range forbidden {
					assert.NotContains(t, text, s, "%T in a %s, printed with %s", v, where, how)
				}
				if holdsNumber(v) && (how == "%v" || how == "%+v" || how == "json" || strings.HasPrefix(how, "slog")) {
					assert.Contains(t, text, "****1111", "%T in a %s, printed with %s, shows the last four digits", v, where, how)
				}
			}
		}
		// The methods themselves, called directly.
		s := v.(fmt.Stringer).String() + v.(fmt.GoStringer).GoString() + v.(slog.LogValuer).LogValue().String()
		assert.NotContains(t, s, secretNumber, "%T", v)
		assert.NotContains(t, s, secretCVV, "%T", v)
		assert.Contains(t, fmt.Sprintf("%#v", v), fmt.Sprintf("%T{", v), "%%#v names the public type")
	}
}

// The masked JSON has the shape of the request the gateway receives, so a
// log reader sees the same fields: same keys at every level, card number
// and security code masked.
func TestMaskedJSONKeepsTheShape(t *testing.T) {
	t.Parallel()
	keys := func(b []byte) []string {
		var m any
		require.NoError(t, json.Unmarshal(b, &m))
		var out []string
		var walk func(prefix string, v any)
		walk = func(prefix string, v any) {
			if o, ok := v.(map[string]any); ok {
				for k, x := range o {
					out = append(out, prefix+k)
					walk(prefix+k+".", x)
				}
			}
		}
		walk("", m)
		return out
	}
	for _, v := range cardValues() {
		masked, err := json.Marshal(v)
		require.NoError(t, err)
		wire, err := json.Marshal(wireForm(v))
		require.NoError(t, err)
		assert.ElementsMatch(t, keys(wire), keys(masked), "%T", v)
		if _, payout := v.(PayoutCardDetails); !payout && reflect.TypeOf(v) != reflect.TypeFor[InlineCardPayout]() {
			assert.Contains(t, string(wire), `"cvv2":"`+secretCVV+`"`, "%T: the wire form is in clear", v)
		}
		if holdsNumber(v) {
			assert.Contains(t, string(masked), `"card_number":"****1111"`, "%T", v)
			assert.Contains(t, string(wire), `"card_number":"`+secretNumber+`"`, "%T", v)
		}
		if strings.Contains(string(wire), `"cvv2"`) {
			assert.Contains(t, string(masked), `"cvv2":"***"`, "%T", v)
		}
	}
	// An absent security code stays absent; an empty number stays empty.
	b, err := json.Marshal(CardUpdateRequest{HolderName: "Juan"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"holder_name":"Juan"}`, string(b))
	b, err = json.Marshal(SubscriptionUpdateRequest{SourceID: "k1"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"source_id":"k1"}`, string(b))
	assert.Equal(t, "", lastFour(""))
	assert.Equal(t, "****", lastFour("12345"), "a value too short to be a card number shows nothing")
	assert.Equal(t, "****", lastFour("4111111111111abc"))
}

// captureServer records every request body and answers 200 with reply.
type captureServer struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
}

func newCaptureServer(t *testing.T, reply string) *captureServer {
	s := &captureServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.bodies = append(s.bodies, string(b))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, reply)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *captureServer) last() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.bodies) == 0 {
		return ""
	}
	return s.bodies[len(s.bodies)-1]
}

// Every operation that sends card data sends it in full: masking is for
// people, never for the gateway.
func TestCardDataSentInFull(t *testing.T) {
	t.Parallel()
	srv := newCaptureServer(t, `{"id":"x1"}`)
	c, err := New(tpMerchant, tpKey, WithBaseURL(srv.URL), WithDefaultClientIP("203.0.113.7"), WithRetryPolicy(RetryPolicy{}))
	require.NoError(t, err)
	ctx := context.Background()
	v := cardValues()
	cardReq, card, payoutCard := v[0].(CardRequest), v[1].(CardDetails), v[2].(PayoutCardDetails)
	cardUpdate, cardCharge, inline := v[3].(CardUpdateRequest), v[4].(CardCharge), v[5].(InlineCardCharge)
	payout, sub, subUpdate := v[6].(InlineCardPayout), v[7].(SubscriptionRequest), v[8].(SubscriptionUpdateRequest)
	groupMerchant := c.Group("grp1").Merchant("m2")

	// Only the request bodies matter here; every call takes the answer
	// {"id":"x1"} as its object.
	ops := []struct {
		name         string
		call         func() error
		number, cvv2 bool
	}{
		{"card", func() error { _, err := c.Cards.Create(ctx, cardReq); return err }, true, true},
		{"customer card", func() error { _, err := c.Customer("c1").Cards.Create(ctx, cardReq); return err }, true, true},
		{"group customer card", func() error { _, err := c.Group("grp1").Customer("c1").Cards.Create(ctx, cardReq); return err }, true, true},
		{"token", func() error { _, err := c.Tokens.Create(ctx, card); return err }, true, true},
		{"card update with a security code", func() error { return c.Cards.Update(ctx, "k1", cardUpdate) }, false, true},
		{"customer card update", func() error { return c.Customer("c1").Cards.Update(ctx, "k1", cardUpdate) }, false, true},
		{"stored card charge with a security code", func() error { _, err := c.Charges.Create(ctx, cardCharge); return err }, false, true},
		{"inline card charge", func() error { _, err := c.Charges.Create(ctx, inline); return err }, true, true},
		{"inline card charge with an order_id", func() error {
			r := inline
			r.OrderID = "oid-1"
			_, err := c.Charges.Create(ctx, r)
			return err
		}, true, true},
		{"customer inline card charge", func() error { _, err := c.Customer("c1").Charges.Create(ctx, inline); return err }, true, true},
		{"group merchant inline card charge", func() error { _, err := groupMerchant.Charges.Create(ctx, inline); return err }, true, true},
		{"group merchant customer inline card charge", func() error {
			_, err := groupMerchant.Customer("c1").Charges.Create(ctx, inline)
			return err
		}, true, true},
		{"inline card payout", func() error { _, err := c.Payouts.Create(ctx, payout); return err }, true, false},
		{"customer inline card payout", func() error { _, err := c.Customer("c1").Payouts.Create(ctx, payout); return err }, true, false},
		{"subscription", func() error { _, err := c.Customer("c1").Subscriptions.Create(ctx, sub); return err }, true, true},
		{"group subscription", func() error {
			_, err := groupMerchant.Customer("c1").Subscriptions.Create(ctx, sub)
			return err
		}, true, true},
		{"subscription update", func() error {
			_, err := c.Customer("c1").Subscriptions.Update(ctx, "s1", subUpdate)
			return err
		}, true, true},
	}
	for _, op := range ops {
		_ = op.call()
		body := srv.last()
		require.NotEmpty(t, body, op.name)
		if op.number {
			assert.Contains(t, body, `"card_number":"`+secretNumber+`"`, op.name)
		}
		if op.cvv2 {
			assert.Contains(t, body, `"cvv2":"`+secretCVV+`"`, op.name)
		}
		assert.NotContains(t, body, "***", op.name)
		assert.LessOrEqual(t, strings.Count(body, `"card":`), 1, "%s: the card is sent once", op.name)
	}
	assert.Equal(t, "4111111111111111", payoutCard.CardNumber, "the caller's value is untouched")
}
