package idgen

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/openpay-go/openpay/internal/barcode"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func seed(v int64) *int64 { return &v }

func TestNewID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind   Kind
		prefix string
	}{
		{KindTransaction, "tr"},
		{KindCard, "k"},
		{KindToken, "k"},
		{KindCustomer, "a"},
		{KindBankAccount, "b"},
		{KindPlan, "p"},
		{KindSubscription, "s"},
		{KindWebhook, "w"},
		{KindMerchant, "m"},
		{Kind(""), ""},
		{Kind(strings.Repeat("z", 25)), strings.Repeat("z", 19)},
	}
	for _, mode := range []struct {
		name string
		seed *int64
	}{{"random", nil}, {"seeded", seed(7)}} {
		g := New(mode.seed)
		for _, tt := range tests {
			t.Run(mode.name+"/"+string(tt.kind), func(t *testing.T) {
				t.Parallel()
				id := g.NewID(tt.kind)
				assert.Len(t, id, Length)
				assert.True(t, strings.HasPrefix(id, tt.prefix), id)
				assert.Regexp(t, `^[a-z0-9]{20}$`, id)
			})
		}
	}
}

func TestIDGeneratorSeeded(t *testing.T) {
	t.Parallel()
	draw := func(g *Generator) []string {
		return []string{
			g.NewID(KindTransaction), g.NewID(KindCustomer), g.AuthorizationNumber(),
			g.StoreReference("trabc"), g.PaybinReference(), g.CustomerStoreReference(),
			g.BankReference(), g.VerificationCode(), g.RequestID(),
		}
	}
	a, b := draw(New(seed(42))), draw(New(seed(42)))
	assert.Equal(t, a, b, "same seed, same sequence")
	c := draw(New(seed(43)))
	assert.NotEqual(t, a[0], c[0], "another seed, another sequence")
	r1, r2 := draw(New(nil)), draw(New(nil))
	assert.NotEqual(t, r1[0], r2[0], "random generators differ")
	assert.NotEqual(t, a[0], r1[0])
}

// TestIDAlphabet checks that every letter and digit occurs in identifiers,
// so that an off-by-one in the alphabet cannot hide.
func TestIDAlphabet(t *testing.T) {
	t.Parallel()
	g := New(seed(1))
	counts := map[rune]int{}
	for range 2000 {
		for _, c := range g.NewID(KindTransaction)[2:] {
			counts[c]++
		}
	}
	assert.Len(t, counts, 36)
	for c, n := range counts {
		// 36000 draws over 36 characters: about 1000 each.
		assert.InDelta(t, 1000, n, 200, "character %c", c)
	}
}

func TestIDGeneratorConcurrent(t *testing.T) {
	t.Parallel()
	for _, s := range []*int64{nil, seed(3)} {
		g := New(s)
		const workers, each = 8, 500
		ids := make(chan string, workers*each)
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range each {
					ids <- g.NewID(KindCard)
				}
			}()
		}
		wg.Wait()
		close(ids)
		seen := map[string]bool{}
		for id := range ids {
			require.Len(t, id, Length)
			require.False(t, seen[id], "duplicate %s", id)
			seen[id] = true
		}
		assert.Len(t, seen, workers*each)
	}
}

func TestReferences(t *testing.T) {
	t.Parallel()
	g := New(nil)
	tests := []struct {
		name string
		got  func() string
		want *regexp.Regexp
	}{
		{"authorization", g.AuthorizationNumber, regexp.MustCompile(`^\d{6}$`)},
		{"store reference", func() string { return g.StoreReference("trnirkiyobo5qfex55ef") },
			regexp.MustCompile(`^000020TRNIRKIYOBO5QFEX55EF01\d{5}$`)},
		{"store reference of odd input", func() string { return g.StoreReference("tr-ñ/é x9" + strings.Repeat("y", 40)) },
			regexp.MustCompile(`^000020TRX9Y{16}01\d{5}$`)},
		{"paybin reference", g.PaybinReference, regexp.MustCompile(`^010199\d{10}$`)},
		{"customer store reference", g.CustomerStoreReference, regexp.MustCompile(`^OPENPAY[A-Z0-9]{10}$`)},
		{"bank reference", g.BankReference, regexp.MustCompile(`^\d{20}$`)},
		{"verification code", g.VerificationCode, regexp.MustCompile(`^[A-Za-z0-9]{8}$`)},
		{"API key", func() string { return g.APIKey("sk_") }, regexp.MustCompile(`^sk_[0-9a-f]{32}$`)},
		{"IVR key", func() string { return strconv.FormatInt(g.IVRKey(), 10) }, regexp.MustCompile(`^[1-9]\d{5}$`)},
		{"CLABE account", func() string { return strconv.FormatUint(g.CLABEAccount(), 10) }, regexp.MustCompile(`^\d{1,11}$`)},
		{"request id", g.RequestID, regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for range 50 {
				assert.Regexp(t, tt.want, tt.got())
			}
		})
	}
	// References are printed as barcodes: they must encode.
	for _, ref := range []string{g.StoreReference(g.NewID(KindTransaction)), g.PaybinReference(), g.CustomerStoreReference()} {
		_, err := barcode.Code128(ref, 1, 45)
		assert.NoError(t, err, ref)
	}
	assert.Len(t, g.StoreReference(g.NewID(KindTransaction)), len("000020TRNIRKIYOBO5QFEX55EF0100009"))
}

// idSink keeps the ids TestIDsAllocateOnce draws on the heap, as a stored
// record does (an id the compiler sees discarded may stay on the stack).
var idSink string

// TestIDsAllocateOnce: an identifier or request id is built in one
// allocation, the string itself (one is drawn for every record and
// request); appended to storage of the caller's, in none.
func TestIDsAllocateOnce(t *testing.T) {
	for _, g := range []*Generator{New(nil), New(seed(7))} {
		assert.Equal(t, 1.0, testing.AllocsPerRun(100, func() { idSink = g.NewID(KindTransaction) }))
		assert.Equal(t, 1.0, testing.AllocsPerRun(100, func() { idSink = g.RequestID() }))
		var buf [2 * Length]byte
		assert.Equal(t, 0.0, testing.AllocsPerRun(100, func() { g.AppendNewID(buf[:0], KindCard) }))
		assert.Zero(t, testing.AllocsPerRun(100, func() { g.AppendNewID(buf[:0], "ev") }))
		id := g.AppendNewID([]byte("x"), KindCard)
		assert.True(t, Valid(string(id[1:])) && id[0] == 'x' && id[1] == 'k', "%s", id)
		// The header's value and the id's bytes are that one allocation.
		assert.Equal(t, 1.0, testing.AllocsPerRun(100, func() { g.RequestIDHeader() }))
		h := g.RequestIDHeader()
		assert.Len(t, h, 1)
		assert.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, h[0])
		assert.NotEqual(t, h[0], g.RequestIDHeader()[0])
	}
}

// TestRequestIDsAsBefore: a seed's request ids are the ones it drew before
// the digits were written eight bytes at a time: each four bits of the two
// words drawn, lowest first, at the id's places of hex digits, the variant
// from the second word's lowest four bits.
func TestRequestIDsAsBefore(t *testing.T) {
	t.Parallel()
	places := []int{0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 14, 15, 16, 17, 19, 20, 21, 22,
		24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35}
	for _, s := range []int64{1, 42, 2026} {
		g, words := New(seed(s)), New(seed(s))
		for range 500 {
			var w [2]uint64
			words.words(w[:])
			want := []byte("xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx")
			for i, at := range places {
				want[at] = hexDigits[w[i/16]>>(4*(i%16))&0xf]
			}
			want[14], want[19] = '4', hexDigits[8+strings.IndexByte(hexDigits, want[19])%4]
			require.Equal(t, string(want), g.RequestID(), "seed %d", s)
		}
	}
	assert.Equal(t, "022e2a40-bfe7-4d8e-9573-0f94d392ba89", New(seed(7)).RequestID(), "a seed's first id, as before")
}

// Every hex digit occurs at every free place of request ids, and the
// variant takes its four values: the 128 bits drawn are used whole.
func TestRequestIDDigitsAreAllUsed(t *testing.T) {
	t.Parallel()
	for _, g := range []*Generator{New(nil), New(seed(9))} {
		seen := make([]map[byte]bool, 36)
		for i := range seen {
			seen[i] = map[byte]bool{}
		}
		for range 2000 {
			id := g.RequestID()
			for i := range len(id) {
				seen[i][id[i]] = true
			}
		}
		for i, s := range seen {
			switch i {
			case 8, 13, 18, 23:
				assert.Equal(t, map[byte]bool{'-': true}, s, i)
			case 14:
				assert.Equal(t, map[byte]bool{'4': true}, s, i)
			case 19:
				assert.Len(t, s, 4, i)
			default:
				assert.Len(t, s, 16, i)
			}
		}
	}
}

// A fixed id is never handed out by the generator: a drawn id equal to a
// reserved one is drawn again.
func TestReservedIDsAreNotDrawn(t *testing.T) {
	t.Parallel()
	plain := New(seed(42))
	first, second := plain.NewID(KindCustomer), plain.NewID(KindCustomer)
	reserving := New(seed(42))
	reserving.Reserve([]string{first})
	assert.Equal(t, second, reserving.NewID(KindCustomer))
	assert.Equal(t, []string{first}, reserving.Reserved())
	assert.Equal(t, 1, reserving.ReservedCount())
}

func TestValidID(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]bool{
		"mzdtln0bmtms6o3kck8f":  true,
		"a9pvykxz4g5rg0fplze0":  true,
		"mzdtln0bmtms6o3kck8":   false, // 19
		"mzdtln0bmtms6o3kck8fx": false, // 21
		"Mzdtln0bmtms6o3kck8f":  false,
		"mzdtln0bmtms6o3kck8_":  false,
		"":                      false,
	} {
		assert.Equal(t, want, Valid(id), id)
	}
}

// TestStateResumesTheSequence: a seeded generator put back to a state goes
// on from there; a random one has no state and refuses a saved one.
func TestStateResumesTheSequence(t *testing.T) {
	t.Parallel()
	g := New(seed(5))
	g.NewID(KindCard)
	st := g.State()
	next := g.NewID(KindCard)
	g.NewID(KindCard)
	g.SetState(st)
	assert.Equal(t, next, g.NewID(KindCard))
	other := New(seed(99))
	require.NoError(t, other.Restore(st))
	assert.Equal(t, next, other.NewID(KindCard), "another run restored from the state")
	g.SetState(nil) // changes nothing
	assert.NotEqual(t, next, g.NewID(KindCard))

	r := New(nil)
	assert.Nil(t, r.State())
	assert.Error(t, r.Restore(st))
}

// BenchmarkDraws measures the draws of a charge's request: its transaction
// id, its authorization number and its request id.
func BenchmarkDraws(b *testing.B) {
	g := New(nil)
	b.ReportAllocs()
	for b.Loop() {
		g.NewID(KindTransaction)
		g.AuthorizationNumber()
		g.RequestIDHeader()
	}
}

// A seed gives the sequence it gave before the alphabets were drawn
// through tables (alphabet.pick): a merchant's seeded ids do not change
// with the server's version.
func TestSeededDrawsAsBefore(t *testing.T) {
	t.Parallel()
	g := New(seed(42))
	got := fmt.Sprintln(g.NewID(KindTransaction), g.AuthorizationNumber(), g.StoreReference("trabc"), g.PaybinReference(),
		g.CustomerStoreReference(), g.BankReference(), g.VerificationCode(), g.APIKey("sk_"), g.IVRKey(), g.CLABEAccount())
	assert.Equal(t, "trqs5xezu8d72ldl5ald 591077 000020TRABC0125601 0101997813449390 OPENPAYH56WEV0TQM 53262358669913955285 "+
		"zR8kL8fJ sk_2507a321420ffa6339e6c12d95722305 142711 13539800298\n", got)
}

// TestHasSkippedIsTheByteByByteTest holds the word-at-once test of
// appendDraw's usual case to the byte-by-byte one, for every alphabet: each
// byte value in each place of a word, and random words.
func TestHasSkippedIsTheByteByByteTest(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for _, a := range []*alphabet{drawLower, drawUpper, drawMixed, drawDigits, drawNonZero, drawHex} {
		byByte := func(x uint64) bool {
			for k := range 8 {
				if int(byte(x>>(8*k))) >= a.limit {
					return true
				}
			}
			return false
		}
		for range 2000 {
			base := rng.Uint64()
			for place := range 8 {
				for b := range 256 {
					x := base&^(0xff<<(8*place)) | uint64(b)<<(8*place)
					if got, want := a.hasSkipped(x), byByte(x); got != want {
						t.Fatalf("limit %d, word %#x: hasSkipped %v, byte by byte %v", a.limit, x, got, want)
					}
				}
			}
		}
	}
}

// TestSeededDrawsAreAWordAtATime holds a seed's draws, many thousands of
// every alphabet (with the skipped bytes among them), to the rule they
// always followed: a word of the seed's PCG at a time, its bytes lowest
// first, a byte from the alphabet's limit on skipped, the rest of the
// last word unused.
func TestSeededDrawsAreAWordAtATime(t *testing.T) {
	t.Parallel()
	g := New(seed(7))
	src := rand.NewPCG(7, 0x6f70656e70617921)
	want := func(a *alphabet, n int) string {
		var b []byte
		for len(b) < n {
			w := src.Uint64()
			for k := 0; k < 8 && len(b) < n; k++ {
				if c := byte(w >> (8 * k)); int(c) < a.limit {
					b = append(b, a.pick[c])
				}
			}
		}
		return string(b)
	}
	for i := range 20_000 {
		a := []*alphabet{drawLower, drawUpper, drawMixed, drawDigits, drawNonZero, drawHex}[i%6]
		n := 1 + i%33
		require.Equal(t, want(a, n), g.draw(a, n), "draw %d: %d characters, limit %d", i, n, a.limit)
	}
	require.Equal(t, "tr"+want(drawLower, Length-2), g.NewID(KindTransaction))
}

// hexDigitsOf writes every value of every four-bit group as its hex digit,
// lowest group in the lowest byte, whatever its neighbours hold.
func TestHexDigitsOf(t *testing.T) {
	t.Parallel()
	for place := range 8 {
		for d := range uint32(16) {
			for _, around := range []uint32{0, 0xffffffff, 0x9a9a9a9a} {
				x := around&^(0xf<<(4*place)) | d<<(4*place)
				got := hexDigitsOf(x)
				for k := range 8 {
					require.Equal(t, hexDigits[x>>(4*k)&0xf], byte(got>>(8*k)), "x %08x digit %d", x, k)
				}
			}
		}
	}
}
