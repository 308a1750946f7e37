// Package paylink is the command payment-link, which shows checkouts, the gateway's payment links: the
// shop creates a link for an order and sends it to the payer, the payer
// pays on the gateway's hosted page, and the shop learns of it from the
// webhook (charge.succeeded, carrying the order's order_id) and by reading
// the checkout.
//
//	go run ./examples/payment-link
//
// With no environment it runs against a reference server started in the
// program: the shop's webhook receiver and its order page (where the payer
// comes back, and which reads the link from the API) listen on a local
// port, and the
// payer is simulated with the server's pay control (the same payment as
// typing a sandbox card on the link's page). With OPENPAY_MERCHANT_ID and
// OPENPAY_PRIVATE_KEY set it creates the link in the Openpay sandbox and
// prints it, to be paid in a browser.
package paylink

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/examples/internal/exampleenv"
	"github.com/openpay-go/openpay/openpaytest"
)

func run(ctx context.Context, out io.Writer) error { return exampleenv.Run(ctx, out, flow) }

func flow(ctx context.Context, env *exampleenv.Env, out io.Writer) error {
	order := fmt.Sprintf("link-%d", time.Now().UnixNano()) // the gateway keeps order ids unique forever
	var hook *receiver
	if env.Sim != nil {
		// The shop's webhook receiver. Against the sandbox it would need an
		// address the gateway can reach.
		var err error
		if hook, err = startReceiver(env.Client); err != nil {
			return err
		}
		defer hook.close()
		wh, err := env.Client.Webhooks.Create(ctx, openpay.WebhookRequest{URL: hook.url, User: "shop", Password: hook.password,
			EventTypes: []openpay.EventType{openpay.EventTypeChargeSucceeded, openpay.EventTypeChargeFailed}})
		if err != nil {
			return fmt.Errorf("registering the webhook: %w", err)
		}
		fmt.Fprintf(out, "webhook %s\n", wh.Status)
	}

	// 1. The shop creates the link, valid for two days.
	deadline, shopURL := time.Now().Add(48*time.Hour), "https://shop.example"
	if env.Sim != nil {
		deadline, shopURL = env.Sim.Now().Add(48*time.Hour), hook.base
	}
	co, err := newLink(ctx, env.Client, order, shopURL, deadline)
	if err != nil {
		return fmt.Errorf("creating the link: %w", err)
	}
	fmt.Fprintf(out, "link %s: %s %s %s, expires %s\n", co.ID, co.Status, co.Amount, co.Currency,
		co.ExpirationDate.Format(time.DateTime[:16]))
	if env.Sim == nil {
		fmt.Fprintln(out, "send the payer to", co.CheckoutLink)
		return nil
	}

	// 2. The payer opens the link: the hosted page of the reference server.
	if err := openPage(ctx, co.CheckoutLink); err != nil {
		return err
	}
	fmt.Fprintln(out, "the payer's page answers")

	// 3. The payer pays with a sandbox card (a declined card would leave
	// the link available for another try).
	if _, err := env.Sim.PayCheckout(co.ID, openpaytest.CardVisa); err != nil {
		return fmt.Errorf("paying the link: %w", err)
	}

	// 4. The webhook says so, with the shop's order id.
	select {
	case ev := <-hook.events:
		fmt.Fprintf(out, "webhook event %s: charge %s for order %s\n", ev.Type, ev.Transaction.Status, orderName(ev.Transaction.OrderID, order))
	case <-ctx.Done():
		return errors.New("no webhook event arrived")
	}

	// 5. Reading the link (by its id, or by the order id) gives the same.
	paid, err := env.Client.Checkouts.GetByOrderID(ctx, order)
	if err != nil {
		return fmt.Errorf("reading the link: %w", err)
	}
	fmt.Fprintf(out, "link %s: %s, paid by charge %s\n", paid.ID, paid.Status, paid.Transaction.Status)
	return nil
}

// newLink creates the link of an order, paid back to the shop's order
// page (shopURL/orders/{order}, where the payer lands with the charge id),
// taking payments until deadline. Its order_id is the order's: a create
// whose answer is lost is settled by reading the link by that order id
// (Checkouts.GetByOrderID) before creating it again.
func newLink(ctx context.Context, client *openpay.Client, order, shopURL string, deadline time.Time) (*openpay.Checkout, error) {
	return client.Checkouts.Create(ctx, openpay.CheckoutRequest{
		Amount: openpay.MustAmount("1250.00"), Description: "Order " + order, OrderID: order,
		RedirectURL:    shopURL + "/orders/" + order,
		ExpirationDate: deadline,
		Customer:       &openpay.ChargeCustomer{Name: "Ana", LastName: "López", Email: "ana.lopez@example.com"},
	})
}

// orderPage is the shop's page the payer comes back to from the link,
// /orders/{order}?id={charge id}. It believes the API, not the query: it
// reads the link by the order id, and the order is paid only when the link
// is completed. A payer back from an abandoned or late payment (the
// charge cancelled, the link expired) reads that the order is not paid.
func orderPage(client *openpay.Client) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		co, err := client.Checkouts.GetByOrderID(r.Context(), r.PathValue("order"))
		if err != nil {
			http.Error(w, "unknown order", http.StatusNotFound)
			return
		}
		state := "not paid"
		switch {
		case co.Status == openpay.CheckoutStatusCompleted:
			state = "paid"
		case co.Status == openpay.CheckoutStatusExpired:
			state = "not paid: the link expired"
		case co.Transaction != nil && co.Transaction.Status == openpay.TransactionStatusCancelled:
			state = "not paid: the payment was cancelled"
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><title>Order</title><p>Order <span id=\"order\">%s</span>: <strong id=\"order_status\">%s</strong></p>\n",
			html.EscapeString(co.OrderID), state)
	}
}

// orderName says whether the event's order id is the shop's.
func orderName(got, want string) string {
	if got == want {
		return "(the shop's order)"
	}
	return got
}

// openPage fetches the link's page as the payer's browser would.
func openPage(ctx context.Context, link string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, link, nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("opening the link: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("the link's page answered %s", res.Status)
	}
	return nil
}

// receiver is the shop on a local port: its webhook endpoint and its
// order pages.
type receiver struct {
	base, url, password string
	events              chan *openpay.WebhookEvent
	srv                 *http.Server
}

func startReceiver(client *openpay.Client) (*receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	base := "http://" + ln.Addr().String()
	rc := &receiver{base: base, url: base + "/webhooks", password: fmt.Sprint(time.Now().UnixNano()),
		events: make(chan *openpay.WebhookEvent, 10)}
	// Deduplicate drops the gateway's retries of an event already handled.
	handle := openpay.Deduplicate(nil, func(_ context.Context, ev *openpay.WebhookEvent) error {
		if ev.Type == openpay.EventTypeChargeSucceeded && ev.Transaction != nil {
			rc.events <- ev
		}
		return nil
	})
	hook, err := openpay.WebhookHandler("shop", rc.password, handle)
	if err != nil {
		ln.Close()
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/webhooks", hook)
	mux.Handle("GET /orders/{order}", orderPage(client))
	rc.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = rc.srv.Serve(ln) }()
	return rc, nil
}

func (rc *receiver) close() { _ = rc.srv.Close() }
