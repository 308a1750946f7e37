package refserver

import (
	"net/http"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/cardrules"
	"github.com/openpay-go/openpay/internal/refserver/idgen"
	"github.com/openpay-go/openpay/internal/refserver/listquery"
)

// Tokens hold card data for one use: a card creation (token_id) or a charge
// (source_id) consumes the token; using it again answers 1003. A consumed
// token can still be read. The security code sent with a token goes with it
// to the card or charge that consumes it and is dropped after that charge.

// registerTokens registers card tokens.
func (s *Server) registerTokens(r *routeTable) {
	r.add("createToken", http.MethodPost, "/v1/{merchant_id}/tokens", http.StatusOK, s.createToken).allowPublicKey()
	r.add("listTokens", http.MethodGet, "/v1/{merchant_id}/tokens", http.StatusOK, s.listTokens)
	r.add("getToken", http.MethodGet, "/v1/{merchant_id}/tokens/{token_id}", http.StatusOK, s.getToken)
	r.add("getTokenPoints", http.MethodGet, "/v1/{merchant_id}/tokens/{token_id}/points", http.StatusOK, s.getTokenPoints)
}

// createToken tokenizes card data, with the card rules of card creation.
func (s *Server) createToken(c *call) (any, *Error) {
	f, e := readBody(c, false)
	if e != nil {
		return nil, e
	}
	var req openpay.CardDetails
	if e := f.Into(&req); e != nil {
		return nil, e
	}
	k, e := s.checkCardData(c.m, f, "", req, "", "")
	if e != nil {
		return nil, e
	}
	tk := &token{id: s.ids.NewID(idgen.KindToken), created: s.nowFor(c.m), card: k}
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	c.m.tokens[tk.id] = tk
	c.m.tokenList = append(c.m.tokenList, tk)
	c.m.mark(recToken, tk.id)
	return tk.wire(), nil
}

// listTokens lists the merchant's tokens, newest first, consumed ones
// included, each masked as getToken answers it.
func (s *Server) listTokens(c *call) (any, *Error) {
	p, e := listquery.Parse(c.query, zoneOf(c.m))
	if e != nil {
		return nil, e
	}
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	return listquery.Page(p, c.m.tokenList, func(tk *token) (time.Time, bool) { return tk.created, true }, (*token).wire), nil
}

// scopeToken returns the token the path names, or 1005. The caller holds
// c.m.mu.
func (c *call) scopeToken() (*token, *Error) {
	id := c.param("token_id")
	tk := c.m.tokens[id]
	if tk == nil {
		return nil, errNotFound("token", id)
	}
	return tk, nil
}

// getToken answers a token, its card masked.
func (s *Server) getToken(c *call) (any, *Error) {
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	tk, e := c.scopeToken()
	if e != nil {
		return nil, e
	}
	return tk.wire(), nil
}

// getTokenPoints answers the points balance of a token's card.
func (s *Server) getTokenPoints(c *call) (any, *Error) {
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	tk, e := c.scopeToken()
	if e != nil {
		return nil, e
	}
	return cardrules.Points(tk.card.prof)
}
