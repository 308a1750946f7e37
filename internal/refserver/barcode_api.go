package refserver

import (
	"net/http"
	"strconv"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/barcode"
	"github.com/openpay-go/openpay/internal/refserver/listquery"
)

// registerBarcode registers the barcode images of store references. Like
// the gateway's, they need no credentials: the payer opens them. Only
// references the server issued are drawn; others answer 1005.
func (s *Server) registerBarcode(r *routeTable) {
	r.add("getBarcode", http.MethodGet, "/barcode/{reference}", http.StatusOK, s.getBarcode).noAuth()
}

// getBarcode answers the Code 128 image (PNG) of an issued reference.
// Parameters: width (pixels per module, 1 to 10, default 1) and height
// (pixels, 1 to 300, default 45); text is accepted and ignored (no human
// readable line is drawn).
func (s *Server) getBarcode(c *call) (any, *Error) {
	ref := c.param("reference")
	if _, ok := s.barcodes.Load(ref); !ok {
		return nil, errorf(openpay.ErrNotFound, "The barcode reference does not exist")
	}
	q := c.query
	size := func(name string, def, max int) (int, *Error) {
		v, ok := listquery.Value(q, name)
		if !ok {
			return def, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > max {
			return 0, errorf(openpay.ErrInvalidParameter, "The parameter '%s' must be an integer from 1 to %d", name, max)
		}
		return n, nil
	}
	width, e := size("width", 1, barcode.MaxModuleWidth)
	if e != nil {
		return nil, e
	}
	height, e := size("height", 45, barcode.MaxHeight)
	if e != nil {
		return nil, e
	}
	img, err := barcode.Code128(ref, width, height)
	if err != nil {
		return nil, errorf(openpay.ErrInvalidParameter, "The reference cannot be drawn as a barcode")
	}
	return rawBody{contentType: "image/png", data: img}, nil
}
