package paylink

import (
	"context"
	"io"
	"time"

	"github.com/openpay-go/openpay"
)

// What the command (main.go) and the tests use. The browser test of the
// links' edges is in the nested module tests/ (tests/examples/payment-link),
// which requires chromedp so that this module does not; it drives the shop
// through these names.

// Run runs the example: a link created, paid and read back.
func Run(ctx context.Context, out io.Writer) error { return run(ctx, out) }

// NewLink creates the link of an order, paid back to the shop's order page
// at shopURL (see newLink).
func NewLink(ctx context.Context, client *openpay.Client, order, shopURL string, deadline time.Time) (*openpay.Checkout, error) {
	return newLink(ctx, client, order, shopURL, deadline)
}

// Receiver is the shop on a local port: its webhook endpoint and its order
// pages.
type Receiver = receiver

// StartReceiver starts the shop on a local port.
func StartReceiver(client *openpay.Client) (*Receiver, error) { return startReceiver(client) }

// Base is the shop's address, http://host:port.
func (rc *receiver) Base() string { return rc.base }

// Close stops the shop.
func (rc *receiver) Close() { rc.close() }
