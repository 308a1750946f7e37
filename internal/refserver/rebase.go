package refserver

import (
	"strings"

	"github.com/openpay-go/openpay/internal/refserver/httpedge"
)

// rebaseStoredURLs points the URLs that a state restored from a data
// directory holds at the server's current address: the payment pages,
// redirect and barcode URLs of transactions and the links and pages of
// checkouts were made with the address of the run that stored them, which
// a restart on port 0 changes. Only the scheme and host change. It runs
// once, after OpenData restored, before any request; events keep the
// transactions as they were sent.
func (s *Server) rebaseStoredURLs() {
	if s.opts.BaseURL == "" {
		return
	}
	base := strings.TrimSuffix(s.opts.BaseURL, "/")
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, m := range s.merchants {
		m.mu.Lock()
		mbase := m.country.HostFor(base)
		for _, t := range m.txList {
			if pm := t.rare().PaymentMethod; pm != nil {
				moved := *pm // a copy: events share the old one
				moved.URL = httpedge.Rebased(pm.URL, mbase)
				moved.BarcodeURL = httpedge.Rebased(pm.BarcodeURL, mbase)
				moved.BarcodePaybinURL = httpedge.Rebased(pm.BarcodePaybinURL, mbase)
				t.more().PaymentMethod = &moved
			}
		}
		for _, r := range extState(m, newCheckoutState).list {
			r.base = httpedge.Rebased(r.base, mbase)
			r.c.CheckoutLink = httpedge.Rebased(r.c.CheckoutLink, mbase)
		}
		m.mu.Unlock()
	}
}
