package webshop

import (
	"context"
	"io"

	"github.com/openpay-go/openpay"
)

// What the command (main.go) and the shop's tests use. The shop's browser
// tests are in the nested module tests/ (tests/examples/web-checkout),
// which requires chromedp so that this module does not; they drive the
// shop through these names.

// Run serves the shop on addr until ctx ends, printing where to open it.
func Run(ctx context.Context, out io.Writer, addr string) error { return run(ctx, out, addr) }

// Config is what the shop needs to know.
type Config = config

// Shop is the web shop: an http.Handler.
type Shop = shop

// Order is one purchase of the shop.
type Order = order

// New returns the shop's handler (see newShop).
func New(cfg Config) (*Shop, error) { return newShop(cfg) }

// RegisterWebhook registers the shop's webhook receiver at url.
func (s *shop) RegisterWebhook(ctx context.Context, url string) (*openpay.Webhook, error) {
	return s.registerWebhook(ctx, url)
}

// Order returns the order of that id, and whether there is one.
func (s *shop) Order(id string) (Order, bool) { return s.order(id) }

// NewOrder opens an order of the product at its price.
func (s *shop) NewOrder() Order { return s.newOrder() }

// Product and Price are what the shop sells.
const Product, Price = product, price

// The states of an order.
const (
	StatusNew      = statusNew
	StatusPending  = statusPending
	StatusPaid     = statusPaid
	StatusDeclined = statusDeclined
	StatusCanceled = statusCanceled
)

// Headline is what the order page says of an order in status.
func Headline(status string) string { return headlines[status] }
