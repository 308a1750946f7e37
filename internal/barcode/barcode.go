// Package barcode draws Code 128 barcodes as PNG images: the bars of the
// reference a payer shows at a store's till.
package barcode

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
)

// Limits of [Code128]. They bound the image a request can make a server
// draw: at most (80*11 + 55) * 10 by 300 pixels, under 3 MB.
const (
	MaxData        = 80  // characters
	MaxModuleWidth = 10  // pixels per module
	MaxHeight      = 300 // pixels
	quietZone      = 10  // modules of white on each side, the symbology's minimum
)

// Errors of [Code128], returned wrapped.
var (
	ErrData = errors.New("barcode: data cannot be encoded")
	ErrSize = errors.New("barcode: size out of range")
)

// Code 128 symbol values with a meaning of their own.
const (
	c128CodeC  = 99  // in code set B: switch to code set C
	c128CodeB  = 100 // in code set C: switch to code set B
	c128StartB = 104
	c128StartC = 105
	c128Stop   = 106
)

// code128Widths holds, for each symbol value 0..105, the widths in modules of
// its three bars and three spaces (bar first), and for value 106 the stop
// pattern's four bars and three spaces. Every symbol is 11 modules wide, the
// stop pattern 13; the bars of a symbol always add up to an even number of
// modules (tests check both).
var code128Widths = [107]string{
	"212222", "222122", "222221", "121223", "121322", "131222", "122213", "122312", "132212", "221213",
	"221312", "231212", "112232", "122132", "122231", "113222", "123122", "123221", "223211", "221132",
	"221231", "213212", "223112", "312131", "311222", "321122", "321221", "312212", "322112", "322211",
	"212123", "212321", "232121", "111323", "131123", "131321", "112313", "132113", "132311", "211313",
	"231113", "231311", "112133", "112331", "132131", "113123", "113321", "133121", "313121", "211331",
	"231131", "213113", "213311", "213131", "311123", "311321", "331121", "312113", "312311", "332111",
	"314111", "221411", "431111", "111224", "111422", "121124", "121421", "141122", "141221", "112214",
	"112412", "122114", "122411", "142112", "142211", "241211", "221114", "413111", "241112", "134111",
	"111242", "121142", "121241", "114212", "124112", "124211", "411212", "421112", "421211", "212141",
	"214121", "412121", "111143", "111341", "131141", "114113", "114311", "411113", "411311", "113141",
	"114131", "311141", "411131", "211412", "211214", "211232", "2331112",
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

// code128Symbols returns the symbol values that encode data: start code,
// data (with code-set switches), checksum and stop. It uses code set B for
// text and switches to code set C (two digits per symbol) for runs of
// digits long enough to save space: four or more at either end of the data,
// six or more in the middle, or data that is just two digits. An odd run
// leaves its first digit in code set B.
func code128Symbols(data string) ([]int, error) {
	if data == "" {
		return nil, fmt.Errorf("%w: empty", ErrData)
	}
	if len(data) > MaxData {
		return nil, fmt.Errorf("%w: longer than %d characters", ErrData, MaxData)
	}
	for i := 0; i < len(data); i++ {
		if data[i] < 32 || data[i] > 126 {
			return nil, fmt.Errorf("%w: byte %d is not printable ASCII", ErrData, i)
		}
	}

	const (
		none = iota
		setB
		setC
	)
	set := none
	syms := make([]int, 0, len(data)+4)
	useSet := func(want int) {
		switch {
		case set == want:
			return
		case set == none && want == setB:
			syms = append(syms, c128StartB)
		case set == none && want == setC:
			syms = append(syms, c128StartC)
		case want == setB:
			syms = append(syms, c128CodeB)
		default:
			syms = append(syms, c128CodeC)
		}
		set = want
	}

	n := len(data)
	for i := 0; i < n; {
		run := 0
		for i+run < n && isDigitByte(data[i+run]) {
			run++
		}
		atEdge := i == 0 || i+run == n
		if run >= 6 || (run >= 4 && atEdge) || (run == 2 && n == 2) {
			if run%2 == 1 {
				// An odd digit goes first, in code set B; pairs follow.
				useSet(setB)
				syms = append(syms, int(data[i])-32)
				i++
				run--
			}
			useSet(setC)
			for end := i + run; i < end; i += 2 {
				syms = append(syms, int(data[i]-'0')*10+int(data[i+1]-'0'))
			}
			continue
		}
		useSet(setB)
		syms = append(syms, int(data[i])-32)
		i++
	}

	check := syms[0]
	for k := 1; k < len(syms); k++ {
		check += syms[k] * k
	}
	syms = append(syms, check%103, c128Stop)
	return syms, nil
}

// code128Modules lays symbols out as modules, true for a bar.
func code128Modules(syms []int) []bool {
	var mods []bool
	for _, s := range syms {
		bar := true
		for _, w := range code128Widths[s] {
			for range int(w - '0') {
				mods = append(mods, bar)
			}
			bar = !bar
		}
	}
	return mods
}

// Code128 draws data as a Code 128 barcode and returns it as a PNG: black
// bars on white, a quiet zone of ten modules on each side, each module
// moduleWidth pixels wide, the bars height pixels tall. The parameters mirror
// the gateway's barcode URLs (?width=1&height=45&text=false); the human
// readable text line is never drawn.
//
// data must be 1 to [MaxData] characters of printable ASCII (32..126),
// else the error wraps [ErrData]; moduleWidth must be 1 to
// [MaxModuleWidth] and height 1 to [MaxHeight], else the error
// wraps [ErrSize].
func Code128(data string, moduleWidth, height int) ([]byte, error) {
	if moduleWidth < 1 || moduleWidth > MaxModuleWidth {
		return nil, fmt.Errorf("%w: module width %d not in 1..%d", ErrSize, moduleWidth, MaxModuleWidth)
	}
	if height < 1 || height > MaxHeight {
		return nil, fmt.Errorf("%w: height %d not in 1..%d", ErrSize, height, MaxHeight)
	}
	syms, err := code128Symbols(data)
	if err != nil {
		return nil, err
	}
	mods := code128Modules(syms)

	const black = 1 // palette index; 0, the default, is white
	width := (len(mods) + 2*quietZone) * moduleWidth
	img := image.NewPaletted(image.Rect(0, 0, width, height), color.Palette{color.White, color.Black})
	row := make([]uint8, width)
	for m, bar := range mods {
		if !bar {
			continue
		}
		start := (quietZone + m) * moduleWidth
		for x := start; x < start+moduleWidth; x++ {
			row[x] = black
		}
	}
	for y := range height {
		copy(img.Pix[y*img.Stride:y*img.Stride+width], row)
	}

	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("barcode: encoding png: %w", err)
	}
	return buf.Bytes(), nil
}
