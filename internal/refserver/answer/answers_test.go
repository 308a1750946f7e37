package answer

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stdlibJSON is v encoded as by json.Encoder with HTML escaping off.
// examplesDir holds the gateway's documented examples.
const examplesDir = "../../../testdata/examples"

func stdlibJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return buf.Bytes(), err
}

// stdlibAnswer is what Write sent before the generated encoders, and
// still sends for other answers: encoding/json's output with the keys of
// the plans added.
func stdlibAnswer(v any) ([]byte, error) {
	data, err := stdlibJSON(v)
	if err != nil {
		return nil, err
	}
	return AddWireKeys(data, v), nil
}

// requireSameAnswer encodes v both ways and requires the same bytes, or an
// error from both.
func requireSameAnswer(t *testing.T, v any) {
	t.Helper()
	want, wantErr := stdlibAnswer(v)
	got, ok, err := Append([]byte("prefix"), v)
	require.True(t, ok, "%T has no generated encoder", v)
	if wantErr != nil {
		require.Error(t, err, "encoding/json fails on %T (%v); the generated encoder must too", v, wantErr)
		return
	}
	require.NoError(t, err, "%T", v)
	require.Equal(t, "prefix"+string(want), string(got), "%T", v)
}

// TestAnswerEncodersMatchEncodingJSON fills each root answer type, by
// reflection, with random values, and requires the generated encoders to
// write what encoding/json and then addWireKeys write, byte for byte, for
// the value, a pointer to it and a list of them, and to fail where
// encoding/json fails. Every struct type with a generated encoder must have
// been filled along the way, and every key of the plans added somewhere.
func TestAnswerEncodersMatchEncodingJSON(t *testing.T) {
	t.Parallel()
	_, structs, err := generateAnswerEncoders(answerRoots)
	require.NoError(t, err)
	f := &answerFiller{r: rand.New(rand.NewPCG(14, 2026)), filled: map[reflect.Type]bool{}}
	added := map[string]bool{} // "key":zero of the plans: added to some answer
	for _, sp := range keyPlanTable {
		for _, k := range sp.always {
			added[`"`+k.name+`":`+k.zero] = false
		}
		for _, vr := range sp.variants {
			for _, k := range vr.keys {
				added[`"`+k.name+`":`+k.zero] = false
			}
		}
	}
	failures := 0
	for _, root := range answerRoots {
		for range 300 {
			v := reflect.New(root)
			f.fill(t, v.Elem(), 0)
			list := reflect.MakeSlice(reflect.SliceOf(root), 0, 3)
			for range f.r.IntN(4) {
				e := reflect.New(root)
				f.fill(t, e.Elem(), 0)
				list = reflect.Append(list, e.Elem())
			}
			if plain, err := stdlibJSON(v.Interface()); err != nil {
				failures++
			} else {
				keyed, _ := stdlibAnswer(v.Interface())
				for k := range added {
					if bytes.Count(keyed, []byte(k)) > bytes.Count(plain, []byte(k)) {
						added[k] = true
					}
				}
			}
			requireSameAnswer(t, v.Elem().Interface())
			requireSameAnswer(t, v.Interface())
			requireSameAnswer(t, list.Interface())
		}
		requireSameAnswer(t, reflect.Zero(reflect.PointerTo(root)).Interface()) // nil pointer
		requireSameAnswer(t, reflect.Zero(reflect.SliceOf(root)).Interface())   // nil list
		requireSameAnswer(t, reflect.New(root).Elem().Interface())              // zero value
	}
	// The wire types with a MarshalJSON of their own (a checkout writes its
	// times and iva as the gateway does) are encoded by encoding/json, and
	// their key plans added by AddWireKeys.
	for _, root := range marshalerRoots {
		for range 300 {
			v := reflect.New(root)
			f.fill(t, v.Elem(), 0)
			plain, err := stdlibJSON(v.Interface())
			if err != nil {
				continue
			}
			keyed, _ := stdlibAnswer(v.Interface())
			for k := range added {
				if bytes.Count(keyed, []byte(k)) > bytes.Count(plain, []byte(k)) {
					added[k] = true
				}
			}
		}
	}
	for _, s := range structs {
		assert.True(t, f.filled[s], "%s was never filled: the test does not reach it", s)
	}
	for k, ok := range added {
		assert.True(t, ok, "no answer had %s added: the test does not reach it", k)
	}
	assert.Positive(t, failures, "some values must be ones encoding/json refuses")
	assert.Less(t, failures, 300*len(answerRoots)/4, "most values must encode")
}

// answerFiller fills values with random data meant to find differences
// between two JSON encoders.
type answerFiller struct {
	r      *rand.Rand
	filled map[reflect.Type]bool // struct types filled
}

// rare is true about once in n times.
func (f *answerFiller) rare(n int) bool { return f.r.IntN(n) == 0 }

// jsonTrickyPieces are the parts random strings are made of.
var jsonTrickyPieces = []string{
	"a", "Zz9", " ", `"`, `\`, "/", "<", ">", "&", "\x00", "\x01", "\b", "\f", "\n", "\r", "\t", "\x1f", "\x7f",
	"é", "ñ", "日本", "\U0001F600", "\u2028", "\u2029", "\u2027", "\ufffd", "\xff", "\xc3", "\xe2\x80", "\xed\xa0\x80",
	"\xf4\x90\x80\x80", "tr6cxbcefzatd10guvvw", "https://example.com/?a=1&b=2",
}

// jsonWords are strings the key plans' variants look for.
var jsonWords = []string{"redirect", "ivr", "store", "bank_transfer", "card", "Redirect", "redirect "}

func (f *answerFiller) string() string {
	if f.rare(4) {
		return ""
	}
	if f.rare(3) {
		return jsonWords[f.r.IntN(len(jsonWords))]
	}
	var sb strings.Builder
	for range 1 + f.r.IntN(8) {
		sb.WriteString(jsonTrickyPieces[f.r.IntN(len(jsonTrickyPieces))])
	}
	return sb.String()
}

var answerZones = []*time.Location{
	time.UTC, time.FixedZone("CST", -6*3600), time.FixedZone("", 5*3600+30*60), time.FixedZone("", -3*3600-59),
	time.FixedZone("", 23*3600+59*60+59),
}

func (f *answerFiller) time() time.Time {
	switch {
	case f.rare(5):
		return time.Time{}
	case f.rare(60):
		return time.Date(10000+f.r.IntN(3), 1, 1, 0, 0, 0, 0, time.UTC) // refused: a five-digit year
	case f.rare(60):
		return time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC) // refused: a negative year
	case f.rare(60):
		return time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("", 24*3600)) // refused: the offset
	}
	sec := f.r.Int64N(253402300800) - 62135596800 // years 1 to 9999
	nsec := int64(0)
	switch f.r.IntN(4) {
	case 0:
		nsec = f.r.Int64N(1e9)
	case 1:
		nsec = f.r.Int64N(1000) * 1e6
	}
	return time.Unix(sec, nsec).In(answerZones[f.r.IntN(len(answerZones))])
}

func (f *answerFiller) amount(t *testing.T) openpay.Amount {
	var text string
	switch f.r.IntN(6) {
	case 0:
		return openpay.Amount{}
	case 1:
		return openpay.AmountFromCents(f.r.Int64() >> f.r.IntN(64))
	case 2:
		return openpay.AmountFromCents(-f.r.Int64N(1e6))
	case 3:
		text = "123456789012345678901234567890" + []string{"", ".5", ".05", ".50"}[f.r.IntN(4)]
	case 4:
		text = []string{"100.0", "0.00", "2000", "1e3", "-0.5", "1.005", "12.3400"}[f.r.IntN(7)] // 1.005 is refused
	default:
		text = strconv.FormatInt(f.r.Int64N(1e9)-1e8, 10) + []string{"", ".7", ".07", ".70", ".00"}[f.r.IntN(5)]
	}
	var a openpay.Amount
	require.NoError(t, json.Unmarshal([]byte(text), &a), text)
	return a
}

// fill sets v, of a wire type, to random data.
func (f *answerFiller) fill(t *testing.T, v reflect.Value, depth int) {
	switch v.Interface().(type) {
	case openpay.Amount:
		v.Set(reflect.ValueOf(f.amount(t)))
		return
	case openpay.Decimal:
		d := openpay.MustDecimal([]string{"0", "19.6452", "-0.0001", "123456789012345678901234567890.123"}[f.r.IntN(4)])
		v.Set(reflect.ValueOf(d))
		return
	case time.Time:
		v.Set(reflect.ValueOf(f.time()))
		return
	case openpay.Date:
		d := openpay.Date{}
		switch {
		case f.rare(40):
			d = openpay.Date{Year: 2026, Month: time.February, Day: 30} // refused: no such day
		case !f.rare(4):
			d = openpay.DateOf(f.time())
		}
		v.Set(reflect.ValueOf(d))
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		f.filled[v.Type()] = true
		for i := range v.NumField() {
			field := v.Type().Field(i)
			require.True(t, field.IsExported(), "%s.%s: the filler needs a case for %s", v.Type(), field.Name, v.Type())
			if !f.rare(5) {
				f.fill(t, v.Field(i), depth+1)
			}
		}
	case reflect.Pointer:
		if depth < 6 && !f.rare(3) {
			p := reflect.New(v.Type().Elem())
			f.fill(t, p.Elem(), depth+1)
			v.Set(p)
		}
	case reflect.Slice:
		switch f.r.IntN(4) {
		case 0: // nil
		case 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		default:
			n := 1 + f.r.IntN(3)
			s := reflect.MakeSlice(v.Type(), n, n)
			for i := range n {
				f.fill(t, s.Index(i), depth+1)
			}
			v.Set(s)
		}
	case reflect.Map:
		switch f.r.IntN(4) {
		case 0: // nil
		case 1:
			v.Set(reflect.MakeMap(v.Type()))
		default:
			m := reflect.MakeMap(v.Type())
			for range 1 + f.r.IntN(4) {
				k := reflect.New(v.Type().Key()).Elem()
				f.fill(t, k, depth+1)
				e := reflect.New(v.Type().Elem()).Elem()
				f.fill(t, e, depth+1)
				m.SetMapIndex(k, e)
			}
			v.Set(m)
		}
	case reflect.String:
		v.SetString(f.string())
	case reflect.Bool:
		v.SetBool(f.r.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n := f.r.Int64() >> f.r.IntN(64)
		if f.r.IntN(2) == 0 {
			n = -n
		}
		v.SetInt(n) // truncated to the kind's width
	case reflect.Float64:
		floats := []float64{0, math.Copysign(0, -1), 19.4326, -99.1332, 1e-7, 1.5e-300, 1e21, -2.5e22, 123456789.125}
		x := floats[f.r.IntN(len(floats))]
		switch {
		case f.rare(3):
			x = f.r.NormFloat64() * math.Pow(10, float64(f.r.IntN(50)-25))
		case f.rare(100):
			x = math.NaN() // refused
		case f.rare(100):
			x = math.Inf(-1) // refused
		}
		v.SetFloat(x)
	default:
		t.Fatalf("the filler has no case for %s", v.Type())
	}
}

// TestAnswerEncodersOnTheGatewayExamples decodes each documented example
// answer into its wire type and requires both encodings of it to be the
// same.
func TestAnswerEncodersOnTheGatewayExamples(t *testing.T) {
	t.Parallel()
	byPrefix := map[string]reflect.Type{
		"bank_accounts": reflect.TypeFor[openpay.BankAccount](), "cards": reflect.TypeFor[openpay.Card](),
		"charges": reflect.TypeFor[openpay.Transaction](), "customers": reflect.TypeFor[openpay.Customer](),
		"errors": reflect.TypeFor[ErrorResponse](), "fees": reflect.TypeFor[openpay.Transaction](),
		"merchant": reflect.TypeFor[openpay.Merchant](), "payments": reflect.TypeFor[openpay.Transaction](),
		"plans": reflect.TypeFor[openpay.Plan](), "stores": reflect.TypeFor[openpay.Store](),
		"subscriptions": reflect.TypeFor[openpay.Subscription](), "tokens": reflect.TypeFor[Token](),
		"transfers": reflect.TypeFor[openpay.Transaction](), "webhooks": reflect.TypeFor[openpay.Webhook](),
		"common_objects--store-object.json":    reflect.TypeFor[openpay.Store](),
		"cards--card-points.json":              reflect.TypeFor[openpay.PointsBalance](),
		"payments--summary-payouts.json":       reflect.TypeFor[openpay.PayoutSummary](),
		"payments--summary-payout-object.json": reflect.TypeFor[openpay.PayoutSummary](),
	}
	entries, err := os.ReadDir(examplesDir)
	require.NoError(t, err)
	done := 0 // the subtests run one after the other
	for _, e := range entries {
		name := e.Name()
		typ, ok := byPrefix[name]
		if !ok {
			prefix, _, _ := strings.Cut(name, "--")
			typ, ok = byPrefix[prefix]
		}
		if !ok || !strings.HasSuffix(name, ".json") {
			continue // the common objects are parts of the answers above
		}
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(examplesDir, name))
			require.NoError(t, err)
			if bytes.HasPrefix(bytes.TrimSpace(data), []byte("[")) {
				typ = reflect.SliceOf(typ)
			}
			v := reflect.New(typ)
			if err := json.Unmarshal(data, v.Interface()); err != nil {
				t.Skipf("the example does not decode into %s: %v", typ, err)
			}
			requireSameAnswer(t, v.Elem().Interface())
			done++
		})
	}
	assert.Greater(t, done, 50, "most examples decode into their wire types")
}

// TestAppendJSONStringCases pins the escapes, beside the fuzz test.
func TestAppendJSONStringCases(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                       `""`,
		`a"b\c`:                  `"a\"b\\c"`,
		"\b\f\n\r\t\x00\x1f\x7f": `"\b\f\n\r\t\u0000\u001f` + "\x7f" + `"`,
		"<&>":                    `"<&>"`,
		"é\u2028\u2029日":         `"é\u2028\u2029日"`,
		"a\xffb\xc3":             `"a\ufffdb\ufffd"`,
	} {
		assert.Equal(t, "x"+want, string(appendJSONString([]byte("x"), in)), "%q", in)
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range jsonTrickyPieces {
		f.Add(s)
	}
	f.Add("plain ascii text")
	f.Fuzz(func(t *testing.T, s string) {
		want, err := stdlibJSON(s)
		require.NoError(t, err)
		require.Equal(t, string(bytes.TrimSuffix(want, []byte("\n"))), string(appendJSONString(nil, s)))
	})
}

// TestAnswerScalarsMatchEncodingJSON checks the float and time helpers at
// the edges of their forms.
func TestAnswerScalarsMatchEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, x := range []float64{0, math.Copysign(0, -1), 1, -1.5, 1e-6, 9.99999e-7, 1e-7, 1e20, 1e21, 123456789e13,
		math.MaxFloat64, math.SmallestNonzeroFloat64, 5e-324, 1e-100, -1e100, math.NaN(), math.Inf(1)} {
		want, wantErr := json.Marshal(x)
		got, err := appendJSONFloat(nil, x)
		if wantErr != nil {
			assert.Error(t, err, "%v", x)
			continue
		}
		assert.Equal(t, string(want), string(got), "%v", x)
	}
	for _, tm := range []time.Time{{}, time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 12, 31, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 23, 12, 0, 0, 120000000, time.FixedZone("", -6*3600)),
		time.Date(2026, 11, 23, 12, 0, 0, 1, time.FixedZone("", 24*3600-1)),
		time.Date(2026, 11, 23, 12, 0, 0, 0, time.FixedZone("", 24*3600)),
		time.Date(2026, 11, 23, 12, 0, 0, 0, time.FixedZone("", -24*3600)),
		time.Date(2026, 11, 23, 12, 0, 0, 0, time.FixedZone("", 100*3600))} {
		want, wantErr := json.Marshal(tm)
		got, err := appendJSONTime([]byte("x"), tm)
		if wantErr != nil {
			assert.Error(t, err, "%v", tm)
			continue
		}
		assert.Equal(t, "x"+string(want), string(got), "%v", tm)
	}
}

// FuzzAppendJSONTime holds appendJSONTime to time.Time's MarshalJSON, in
// the zones of the gateway's countries, UTC and odd fixed offsets, over
// years 0 to 10000 and any nanosecond.
func FuzzAppendJSONTime(f *testing.F) {
	zones := []*time.Location{time.UTC, time.FixedZone("", -6*3600), time.FixedZone("", 5*3600+45*60),
		time.FixedZone("", -(23*3600 + 59*60)), time.FixedZone("", 24*3600), time.FixedZone("", -1), time.FixedZone("", 90)}
	for _, name := range []string{"America/Mexico_City", "America/Bogota", "America/Lima"} {
		if loc, err := time.LoadLocation(name); err == nil {
			zones = append(zones, loc)
		}
	}
	f.Add(int64(1773165600), int64(0), uint8(0))
	f.Add(int64(1773165600), int64(123456789), uint8(1))
	f.Add(int64(-62167219200), int64(500), uint8(2))
	f.Add(int64(253402300799), int64(999999999), uint8(3))
	f.Add(int64(253402300800), int64(0), uint8(4))
	f.Add(int64(-62167219201), int64(1), uint8(5))
	f.Fuzz(func(t *testing.T, sec, nsec int64, zone uint8) {
		tm := time.Unix(sec, nsec).In(zones[int(zone)%len(zones)])
		want, wantErr := tm.MarshalJSON()
		got, err := appendJSONTime([]byte("x"), tm)
		if wantErr != nil {
			assert.Error(t, err, "%v", tm)
			return
		}
		if assert.NoError(t, err, "%v", tm) {
			assert.Equal(t, "x"+string(want), string(got), "%v", tm)
		}
	})
}

// Strings are scanned eight bytes at a time: a byte to escape at any place
// of a word, and words of every alignment, are written as encoding/json
// writes them.
func TestAppendJSONStringAtEveryPlace(t *testing.T) {
	t.Parallel()
	plain := "abcdefghijklmnopqrstuvwxyz0123456789 ~!"
	for _, special := range []string{"\x00", "\x1f", "\"", "\\", "\x7f", "\x80", "\xff", "é", "\u2028", "<", "\t"} {
		for n := range len(plain) {
			for at := range n + 1 {
				s := plain[:at] + special + plain[at:n]
				want, err := stdlibJSON(s)
				require.NoError(t, err)
				require.Equal(t, string(bytes.TrimSuffix(want, []byte("\n"))), string(appendJSONString(nil, s)), "%q", s)
			}
		}
	}
}

// BenchmarkAppendJSONString writes the strings of a transfer's answer.
func BenchmarkAppendJSONString(b *testing.B) {
	strs := []string{"trqs5xezu8d72ldl5ald", "Transferencia 123456", "bench-123456", "a4i7bcs1wwhvgwkqgykn",
		"completed", "transfer", "customer", "MXN", "out", "646180796388019644", "OPENPAYH56WEV0TQM",
		"http://127.0.0.1:34567/barcode/OPENPAYH56WEV0TQM?width=1&height=45&text=false"}
	buf := make([]byte, 0, 1024)
	for b.Loop() {
		buf = buf[:0]
		for _, s := range strs {
			buf = appendJSONString(buf, s)
		}
	}
}
