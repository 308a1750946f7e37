package barcode

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// code128Decode reads a barcode back from PNG bytes, the way a scanner
// would: it finds the bars of one row, measures them in modules, looks each
// group of six widths up, and checks the start code, the checksum and the
// stop pattern. It returns the decoded text and the symbol values.
func code128Decode(pngBytes []byte, moduleWidth int) (string, []int, error) {
	img, err := png.Decode(bytes.NewReader(pngBytes))
	if err != nil {
		return "", nil, err
	}
	b := img.Bounds()
	dark := func(x, y int) bool {
		r, g, bl, _ := img.At(x, y).RGBA()
		return r+g+bl < 3*0x8000
	}
	// Every row must be the same: the bars run the full height.
	for _, y := range []int{b.Min.Y, (b.Min.Y + b.Max.Y) / 2, b.Max.Y - 1} {
		for x := b.Min.X; x < b.Max.X; x++ {
			if dark(x, y) != dark(x, b.Min.Y) {
				return "", nil, fmt.Errorf("row %d differs from row %d at x=%d", y, b.Min.Y, x)
			}
		}
	}
	// Run lengths of the middle row.
	y := (b.Min.Y + b.Max.Y) / 2
	type run struct {
		bar bool
		n   int
	}
	var runs []run
	for x := b.Min.X; x < b.Max.X; x++ {
		d := dark(x, y)
		if len(runs) > 0 && runs[len(runs)-1].bar == d {
			runs[len(runs)-1].n++
		} else {
			runs = append(runs, run{d, 1})
		}
	}
	if len(runs) < 3 || runs[0].bar || runs[len(runs)-1].bar {
		return "", nil, errors.New("no quiet zone on both sides")
	}
	if runs[0].n < 10*moduleWidth || runs[len(runs)-1].n < 10*moduleWidth {
		return "", nil, fmt.Errorf("quiet zones %d and %d pixels, want at least %d", runs[0].n, runs[len(runs)-1].n, 10*moduleWidth)
	}
	inner := runs[1 : len(runs)-1]
	if (len(inner)-7)%6 != 0 || len(inner) < 6*3+7 {
		return "", nil, fmt.Errorf("%d bars and spaces cannot be start, check, stop and data", len(inner))
	}
	widths := make([]byte, len(inner))
	for i, r := range inner {
		if r.n%moduleWidth != 0 {
			return "", nil, fmt.Errorf("element %d is %d pixels, not a multiple of %d", i, r.n, moduleWidth)
		}
		m := r.n / moduleWidth
		if m < 1 || m > 4 {
			return "", nil, fmt.Errorf("element %d is %d modules wide", i, m)
		}
		widths[i] = byte('0' + m)
	}
	lookup := map[string]int{}
	for v, w := range code128Widths {
		lookup[w] = v
	}
	var syms []int
	for i := 0; i+6 <= len(widths)-7; i += 6 {
		v, ok := lookup[string(widths[i:i+6])]
		if !ok || v > 105 {
			return "", nil, fmt.Errorf("pattern %s is no symbol", widths[i:i+6])
		}
		syms = append(syms, v)
	}
	if stop := string(widths[len(widths)-7:]); stop != "2331112" {
		return "", nil, fmt.Errorf("stop pattern %s", stop)
	}
	sum := syms[0]
	for i := 1; i < len(syms)-1; i++ {
		sum += i * syms[i]
	}
	if sum%103 != syms[len(syms)-1] {
		return "", nil, fmt.Errorf("checksum %d, want %d", syms[len(syms)-1], sum%103)
	}
	var text strings.Builder
	var inC bool
	switch syms[0] {
	case 104:
	case 105:
		inC = true
	default:
		return "", nil, fmt.Errorf("start code %d", syms[0])
	}
	for _, v := range syms[1 : len(syms)-1] {
		switch {
		case !inC && v < 95:
			text.WriteByte(byte(v + 32))
		case !inC && v == 99:
			inC = true
		case inC && v < 100:
			fmt.Fprintf(&text, "%02d", v)
		case inC && v == 100:
			inC = false
		default:
			return "", nil, fmt.Errorf("symbol %d unexpected (code set C: %v)", v, inC)
		}
	}
	return text.String(), append(syms, 106), nil
}

// code128Coverage are inputs that together use every code set B character
// and every code set C digit pair, plus both code-set switches.
func code128Coverage() []string {
	var all []byte
	for c := byte(32); c <= 126; c++ {
		all = append(all, c)
	}
	var pairs strings.Builder
	for v := range 100 {
		fmt.Fprintf(&pairs, "%02d", v)
	}
	p := pairs.String()
	return []string{string(all[:48]), string(all[48:]), p[:68], p[68:136], p[136:], "AB123456CD", "1234567AB"}
}

func TestCode128RoundTrip(t *testing.T) {
	t.Parallel()
	inputs := append([]string{
		"000020TRNIRKIYOBO5QFEX55EF0100009", // a store reference
		"0101990000001065",                  // a paybin reference
		"OPENPAY02DQ35YOY7",                 // a customer store reference
		"x", "7", "99", "123", "12345", "ab12", "ab1234", "12ab", "1234ab", "a123456b", "a1234567b",
		" ", "~", "Hello, World!",
		strings.Repeat("9", MaxData),
		strings.Repeat("Z", MaxData),
	}, code128Coverage()...)
	for _, data := range inputs {
		for _, mw := range []int{1, 2, 3} {
			for _, h := range []int{1, 45} {
				t.Run(fmt.Sprintf("%s/w%d/h%d", data, mw, h), func(t *testing.T) {
					t.Parallel()
					out, err := Code128(data, mw, h)
					require.NoError(t, err)
					cfg, err := png.DecodeConfig(bytes.NewReader(out))
					require.NoError(t, err)
					syms, err := code128Symbols(data)
					require.NoError(t, err)
					assert.Equal(t, (11*len(syms)+2+20)*mw, cfg.Width)
					assert.Equal(t, h, cfg.Height)

					got, gotSyms, err := code128Decode(out, mw)
					require.NoError(t, err)
					assert.Equal(t, data, got)
					assert.Equal(t, syms, gotSyms)
				})
			}
		}
	}
}

// TestCode128Symbols pins the symbol values of a store reference, worked out
// by hand from the symbology: code set C for the leading digits, B for the
// text, a lone digit in B, then C for the trailing digit pairs.
func TestCode128Symbols(t *testing.T) {
	t.Parallel()
	b := func(s string) []int {
		var v []int
		for i := 0; i < len(s); i++ {
			v = append(v, int(s[i])-32)
		}
		return v
	}
	tests := []struct {
		data string
		want []int // without checksum and stop
	}{
		{"000020TRNIRKIYOBO5QFEX55EF0100009",
			append(append(append([]int{105, 0, 0, 20, 100}, b("TRNIRKIYOBO5QFEX55EF0")...), 99), 10, 0, 9)},
		{"0101990000001065", []int{105, 1, 1, 99, 0, 0, 0, 10, 65}},
		{"12345", append(append([]int{104}, b("1")...), 99, 23, 45)},
		{"123", append([]int{104}, b("123")...)},
		{"99", []int{105, 99}},
		{"ab1234", append(append([]int{104}, b("ab")...), 99, 12, 34)},
		{"1234ab", append([]int{105, 12, 34, 100}, b("ab")...)},
		{"a12345b", append([]int{104}, b("a12345b")...)},
		{"a123456b", append(append(append([]int{104}, b("a")...), 99, 12, 34, 56, 100), b("b")...)},
	}
	for _, tt := range tests {
		t.Run(tt.data, func(t *testing.T) {
			t.Parallel()
			got, err := code128Symbols(tt.data)
			require.NoError(t, err)
			sum := tt.want[0]
			for i := 1; i < len(tt.want); i++ {
				sum += i * tt.want[i]
			}
			assert.Equal(t, append(tt.want, sum%103, 106), got)
		})
	}
}

// TestCode128Table checks the structure every Code 128 pattern has.
func TestCode128Table(t *testing.T) {
	t.Parallel()
	seen := map[string]int{}
	for v, w := range code128Widths {
		total, bars := 0, 0
		for i, c := range w {
			require.True(t, c >= '1' && c <= '4', "value %d: width %c", v, c)
			total += int(c - '0')
			if i%2 == 0 {
				bars += int(c - '0')
			}
		}
		if v == 106 {
			assert.Len(t, w, 7)
			assert.Equal(t, 13, total, "stop pattern modules")
		} else {
			assert.Len(t, w, 6, "value %d", v)
			assert.Equal(t, 11, total, "value %d modules", v)
		}
		assert.Zero(t, bars%2, "value %d: bar modules must be even", v)
		prev, dup := seen[w]
		assert.False(t, dup, "value %d repeats value %d", v, prev)
		seen[w] = v
	}
}

// TestCode128Golden pins the exact bars of the coverage inputs. They were
// read back correctly by an independent decoder (zbar's zbarimg) when this
// digest was recorded (at module widths 2 and 3; zbar does not resolve
// one-pixel modules reliably), so a change to the pattern table or the layout shows
// here even though the round-trip test shares the table with the encoder.
func TestCode128Golden(t *testing.T) {
	t.Parallel()
	h := sha256.New()
	for _, data := range code128Coverage() {
		syms, err := code128Symbols(data)
		require.NoError(t, err)
		for _, bar := range code128Modules(syms) {
			if bar {
				h.Write([]byte{'1'})
			} else {
				h.Write([]byte{'0'})
			}
		}
		h.Write([]byte{'\n'})
	}
	assert.Equal(t, "bbf4880846e8a72648817615f0590c5fe392a6a916240691e9ec16e15c7dadf1", hex.EncodeToString(h.Sum(nil)))
}

func TestCode128PNGErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		data        string
		width, high int
		want        error
	}{
		{"empty", "", 1, 45, ErrData},
		{"control character", "AB\x1fC", 1, 45, ErrData},
		{"newline", "AB\n", 1, 45, ErrData},
		{"DEL", "AB\x7f", 1, 45, ErrData},
		{"non-ASCII", "CAFÉ", 1, 45, ErrData},
		{"NUL", "\x00", 1, 45, ErrData},
		{"too long", strings.Repeat("A", MaxData+1), 1, 45, ErrData},
		{"zero width", "A", 0, 45, ErrSize},
		{"negative width", "A", -1, 45, ErrSize},
		{"width too large", "A", MaxModuleWidth + 1, 45, ErrSize},
		{"zero height", "A", 1, 0, ErrSize},
		{"height too large", "A", 1, MaxHeight + 1, ErrSize},
		{"huge height", "A", 1, 1 << 30, ErrSize},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := Code128(tt.data, tt.width, tt.high)
			assert.ErrorIs(t, err, tt.want)
			assert.Nil(t, out)
		})
	}
}

func TestCode128PNGLargestImage(t *testing.T) {
	t.Parallel()
	out, err := Code128(strings.Repeat("~", MaxData), MaxModuleWidth, MaxHeight)
	require.NoError(t, err)
	img, _, err := image.Decode(bytes.NewReader(out))
	require.NoError(t, err)
	assert.LessOrEqual(t, img.Bounds().Dx()*img.Bounds().Dy(), 3_000_000)
}

// FuzzCode128PNG checks that any data either is refused with ErrData
// or ErrSize, or comes back from the bars unchanged.
func FuzzCode128PNG(f *testing.F) {
	for _, s := range []string{"000020TRNIRKIYOBO5QFEX55EF0100009", "0101990000001065", "a1b22c333d4444", "", "\x00", "é"} {
		f.Add(s, 1, 45)
	}
	f.Add("12345678", 3, 2)
	f.Fuzz(func(t *testing.T, data string, width, height int) {
		out, err := Code128(data, width, height)
		if err != nil {
			if !errors.Is(err, ErrData) && !errors.Is(err, ErrSize) {
				t.Fatalf("unexpected error %v", err)
			}
			if out != nil {
				t.Fatal("output with an error")
			}
			return
		}
		got, _, err := code128Decode(out, width)
		if err != nil {
			t.Fatalf("decoding %q: %v", data, err)
		}
		if got != data {
			t.Fatalf("decoded %q, want %q", got, data)
		}
	})
}
