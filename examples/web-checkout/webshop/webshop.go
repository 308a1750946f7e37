// Package webshop is the shop of the command web-checkout: a small web shop
// that takes card payments in the browser:
//
//   - the checkout page loads the browser library (Openpay.js), which turns
//     the card into a token with the public key and makes the device session
//     id, so that card data never reaches the shop's server;
//   - the shop charges the token with the payer's IP address (taken from the
//     request with openpay.WithClientIPFrom) and, when the payer asks, with
//     3-D Secure, sending the payer to the bank's page;
//   - or it makes a redirect charge and the payer types the card on the
//     gateway's own page;
//   - the return page reads the charge from the API (the query string only
//     says which charge: anyone can write one);
//   - a webhook receiver (openpay.WebhookHandler with openpay.Deduplicate)
//     updates the order when the gateway says the charge changed, whether or
//     not the payer came back.
//
// Run it and open the URL it prints:
//
//	go run ./examples/web-checkout [-addr 127.0.0.1:8000]
//
// With no environment it runs against a reference server started in the
// program, which also serves the browser library and the hosted pages
// (3-D Secure challenge, card form); try the cards of the sandbox table
// (4111111111111111 pays, 4000000000030017 is declined, 5454545454545454
// asks for 3-D Secure). With OPENPAY_MERCHANT_ID, OPENPAY_PRIVATE_KEY and
// OPENPAY_PUBLIC_KEY set it runs against the Openpay sandbox, and the page
// loads the gateway's scripts from https://openpay.s3.amazonaws.com. The
// sandbox can deliver webhooks only to an address it can reach: set
// SHOP_PUBLIC_URL (a tunnel to this shop, for instance) to register one;
// without it the return page alone updates orders.
package webshop

import (
	"context"
	"crypto/rand"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/examples/internal/exampleenv"
)

// gatewayScripts is where the gateway serves Openpay.js.
const gatewayScripts = "https://openpay.s3.amazonaws.com"

// product and price are what the shop sells.
const product, price = "Talavera mug", "250.00"

// run serves the shop on addr until ctx ends.
func run(ctx context.Context, out io.Writer, addr string) error {
	env, err := exampleenv.Connect()
	if err != nil {
		return err
	}
	defer env.Close()
	if env.Public == nil {
		return errors.New("set OPENPAY_PUBLIC_KEY too: the checkout page makes tokens with the public key")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	cfg := config{
		Client: env.Client, MerchantID: env.MerchantID, PublicKey: env.PublicKey,
		ScriptBase: gatewayScripts, Sandbox: true,
		BaseURL:  "http://" + ln.Addr().String(),
		HookUser: "shop", HookPassword: rand.Text(),
	}
	hookBase := os.Getenv("SHOP_PUBLIC_URL")
	if env.Sim != nil {
		// The reference server serves the browser library itself, and
		// reaches the shop where it listens.
		cfg.ScriptBase, hookBase = env.Sim.URL, cfg.BaseURL
	}
	shop, err := newShop(cfg)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: shop, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	defer srv.Close()

	fmt.Fprintln(out, "Running against", env.Where())
	if hookBase != "" {
		// The gateway sends the verification event before it answers, so
		// the shop is already serving.
		hook, err := shop.registerWebhook(ctx, strings.TrimSuffix(hookBase, "/")+"/webhooks")
		if err != nil {
			return fmt.Errorf("registering the webhook: %w", err)
		}
		fmt.Fprintf(out, "webhook %s %s\n", hook.ID, hook.Status)
		defer func() {
			// A new password is made at each start: leave no stale webhook behind.
			_ = env.Client.Webhooks.Delete(context.WithoutCancel(ctx), hook.ID)
		}()
	} else {
		fmt.Fprintln(out, "no webhook: set SHOP_PUBLIC_URL to an address the gateway can reach")
	}
	fmt.Fprintf(out, "Open %s/ in your browser (Ctrl-C stops the shop)\n", cfg.BaseURL)

	select {
	case <-ctx.Done():
		return nil
	case err := <-served:
		return err
	}
}

// config is what the shop needs to know.
type config struct {
	// Client calls the API with the private key (server side only).
	Client *openpay.Client
	// MerchantID and PublicKey go to the page for the browser library.
	MerchantID, PublicKey string
	// ScriptBase is where the page loads openpay.v1.min.js and
	// openpay-data.v1.min.js from; Sandbox is the library's sandbox mode.
	ScriptBase string
	Sandbox    bool
	// BaseURL is the shop's own address, where the payer returns.
	BaseURL string
	// HookUser and HookPassword are the webhook's credentials.
	HookUser, HookPassword string
}

// Order states.
const (
	statusNew      = "new"
	statusPending  = "pending" // waiting for the payer (3-D Secure, the gateway's page)
	statusPaid     = "paid"
	statusDeclined = "declined"
	statusCanceled = "cancelled"
)

// order is one purchase. Its id is sent as the charge's order_id, which the
// gateway keeps unique: it ties the charge to the order for good.
type order struct {
	ID       string
	Amount   openpay.Amount
	Status   string
	Message  string // why a payment was declined
	ChargeID string
	// Events are the webhook events that updated the order.
	Events []openpay.EventType
}

// shop is the web shop: an http.Handler.
type shop struct {
	cfg    config
	mux    *http.ServeMux
	prefix string // makes order ids unique across runs (the gateway keeps them forever)

	mu     sync.Mutex
	orders map[string]*order
	next   int
}

//go:embed templates/*.html
var templates embed.FS

var pages = template.Must(template.ParseFS(templates, "templates/*.html"))

// newShop returns the shop's handler: the checkout page at /, the payment
// at POST /pay, the return page at /return?id={charge id} and the webhook
// receiver at POST /webhooks.
func newShop(cfg config) (*shop, error) {
	s := &shop{cfg: cfg, mux: http.NewServeMux(), orders: map[string]*order{},
		prefix: fmt.Sprintf("web-%d", time.Now().Unix())}
	s.mux.HandleFunc("GET /{$}", s.checkout)
	s.mux.HandleFunc("POST /pay", s.pay)
	s.mux.HandleFunc("GET /return", s.returned)
	hook, err := openpay.WebhookHandler(cfg.HookUser, cfg.HookPassword, openpay.Deduplicate(nil, s.event))
	if err != nil {
		return nil, err
	}
	s.mux.Handle("/webhooks", hook)
	return s, nil
}

func (s *shop) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// registerWebhook has the gateway send the charges' events to url.
func (s *shop) registerWebhook(ctx context.Context, url string) (*openpay.Webhook, error) {
	return s.cfg.Client.Webhooks.Create(ctx, openpay.WebhookRequest{
		URL: url, User: s.cfg.HookUser, Password: s.cfg.HookPassword,
		EventTypes: []openpay.EventType{openpay.EventTypeChargeSucceeded, openpay.EventTypeChargeFailed,
			openpay.EventTypeChargeCancelled},
	})
}

func (s *shop) checkout(w http.ResponseWriter, r *http.Request) {
	render(w, http.StatusOK, "checkout.html", map[string]any{
		"Product": product, "Amount": price, "ScriptBase": s.cfg.ScriptBase, "Sandbox": s.cfg.Sandbox,
		"MerchantID": s.cfg.MerchantID, "PublicKey": s.cfg.PublicKey,
	})
}

// pay charges the token the page sent, or makes a charge whose card the
// payer types on the gateway's page.
func (s *shop) pay(w http.ResponseWriter, r *http.Request) {
	o := s.newOrder()
	customer := &openpay.ChargeCustomer{Name: r.FormValue("name"), LastName: r.FormValue("last_name"),
		Email: r.FormValue("email")}
	returnURL := s.cfg.BaseURL + "/return"
	var req openpay.ChargeRequest
	if r.FormValue("mode") == "hosted" {
		req = openpay.RedirectCharge{Amount: o.Amount, Description: product, OrderID: o.ID,
			Customer: customer, RedirectURL: returnURL}
	} else {
		// redirect_url goes with every card charge: the bank may ask for
		// 3-D Secure even when the payer did not.
		req = openpay.CardCharge{SourceID: r.FormValue("token_id"), DeviceSessionID: r.FormValue("device_session_id"),
			Amount: o.Amount, Description: product, OrderID: o.ID, Customer: customer,
			Use3DSecure: r.FormValue("use_3ds") != "", RedirectURL: returnURL}
	}
	// The payer's address is the connection's peer. Behind a proxy, pass
	// its address ranges so that its X-Forwarded-For is read.
	charge, err := s.cfg.Client.Charges.Create(r.Context(), req, openpay.WithClientIPFrom(r))
	var oe *openpay.Error
	switch {
	case openpay.ClassOf(err) == openpay.ClassDeclined && errors.As(err, &oe):
		// The card was refused (the gateway keeps a failed charge for the
		// order) or its data is wrong: tell the payer why.
		s.update(o.ID, func(o *order) { o.Status, o.Message = statusDeclined, oe.Description })
		s.showOrder(w, o.ID)
		return
	case err != nil:
		log.Printf("order %s: %v", o.ID, err)
		http.Error(w, "the payment could not be made; try again", http.StatusBadGateway)
		return
	}
	s.apply(charge)
	if charge.Status == openpay.TransactionStatusChargePending && charge.PaymentMethod != nil && charge.PaymentMethod.URL != "" {
		// The bank's 3-D Secure page or the gateway's card form; the payer
		// comes back to /return.
		http.Redirect(w, r, charge.PaymentMethod.URL, http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/return?id="+charge.ID, http.StatusSeeOther)
}

// returned is where the payer lands after paying. The id in the query says
// which charge to read; its status comes from the API.
func (s *shop) returned(w http.ResponseWriter, r *http.Request) {
	charge, err := s.cfg.Client.Charges.Get(r.Context(), r.URL.Query().Get("id"))
	if err != nil {
		http.Error(w, "unknown payment", http.StatusNotFound)
		return
	}
	if !s.apply(charge) {
		http.Error(w, "unknown payment", http.StatusNotFound)
		return
	}
	s.showOrder(w, charge.OrderID)
}

// event handles a webhook delivery. The body is only a hint of which charge
// changed: the charge is read again from the API.
func (s *shop) event(ctx context.Context, ev *openpay.WebhookEvent) error {
	if ev.Transaction == nil || !strings.HasPrefix(string(ev.Type), "charge.") {
		return nil // the verification event, or an event the shop has no use for
	}
	charge, err := s.cfg.Client.Charges.Get(ctx, ev.Transaction.ID)
	if err != nil {
		return err // answered 500: the gateway delivers it again later
	}
	if s.apply(charge) {
		s.update(charge.OrderID, func(o *order) { o.Events = append(o.Events, ev.Type) })
	}
	return nil
}

// apply records what the charge says about its order. It reports whether
// the charge belongs to one of the shop's orders, for its amount.
func (s *shop) apply(charge *openpay.Transaction) bool {
	found := false
	s.update(charge.OrderID, func(o *order) {
		if charge.Amount.Cmp(o.Amount) != 0 {
			return
		}
		found = true
		o.ChargeID = charge.ID
		switch charge.Status {
		case openpay.TransactionStatusCompleted:
			o.Status, o.Message = statusPaid, ""
		case openpay.TransactionStatusFailed:
			o.Status, o.Message = statusDeclined, charge.ErrorMessage
		case openpay.TransactionStatusCancelled:
			o.Status = statusCanceled
		case openpay.TransactionStatusChargePending, openpay.TransactionStatusInProgress:
			o.Status = statusPending
		}
	})
	return found
}

func (s *shop) newOrder() order {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	o := &order{ID: fmt.Sprintf("%s-%d", s.prefix, s.next), Amount: openpay.MustAmount(price), Status: statusNew}
	s.orders[o.ID] = o
	return *o
}

// update changes an order under the lock; unknown ids are ignored.
func (s *shop) update(id string, change func(*order)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o, ok := s.orders[id]; ok {
		change(o)
	}
}

// order returns a copy of an order.
func (s *shop) order(id string) (order, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.orders[id]
	if !ok {
		return order{}, false
	}
	c := *o
	c.Events = append([]openpay.EventType(nil), o.Events...)
	return c, true
}

var headlines = map[string]string{
	statusNew: "Not paid yet", statusPending: "Waiting for your bank", statusPaid: "Thank you: paid",
	statusDeclined: "Payment declined", statusCanceled: "Payment cancelled",
}

func (s *shop) showOrder(w http.ResponseWriter, id string) {
	o, _ := s.order(id)
	render(w, http.StatusOK, "result.html", map[string]any{"ID": o.ID, "Amount": o.Amount, "ChargeID": o.ChargeID,
		"Headline": headlines[o.Status], "Message": o.Message})
}

func render(w http.ResponseWriter, status int, name string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if err := pages.ExecuteTemplate(w, name, data); err != nil {
		log.Printf("rendering %s: %v", name, err)
	}
}
