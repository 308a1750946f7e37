package refserver

import (
	"net/url"
	"strings"
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
				moved.URL = rebased(pm.URL, mbase)
				moved.BarcodeURL = rebased(pm.BarcodeURL, mbase)
				moved.BarcodePaybinURL = rebased(pm.BarcodePaybinURL, mbase)
				t.more().PaymentMethod = &moved
			}
		}
		for _, r := range extState(m, newCheckoutState).list {
			r.base = rebased(r.base, mbase)
			r.c.CheckoutLink = rebased(r.c.CheckoutLink, mbase)
		}
		m.mu.Unlock()
	}
}

// rebased is u with the scheme and host of base; u unchanged when either
// is not an absolute URL.
func rebased(u, base string) string {
	if u == "" {
		return u
	}
	old, err1 := url.Parse(u)
	to, err2 := url.Parse(base)
	if err1 != nil || err2 != nil || old.Host == "" || to.Host == "" {
		return u
	}
	old.Scheme, old.Host = to.Scheme, to.Host
	return old.String()
}
