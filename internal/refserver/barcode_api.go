package refserver

import (
	"net/http"
	"net/url"
)

// barcodeURL is the address of the barcode image of a reference, in the
// gateway's form (/barcode/{reference}?width=1&height=45&text=false).
func barcodeURL(baseURL, ref string) string {
	return baseURL + "/barcode/" + url.PathEscape(ref) + "?width=1&height=45&text=false"
}

// registerBarcode registers the barcode images of store references.
func (s *Server) registerBarcode(r *routeTable) {
	r.add("getBarcode", http.MethodGet, "/barcode/{reference}", http.StatusOK, notImplemented).noAuth()
}
