// Command colombia-pse shows a Colombian PSE payment: the shop charges
// with openpay.PSECharge, sends the payer to the bank page the answer
// names, and, when the payer comes back to its redirect_url with the
// charge id, reads the charge to learn the outcome. A second charge is paid
// through a simulation control, as a test would.
//
//	go run ./examples/colombia-pse
//
// With no environment it runs against a reference server started in the
// program, with a Colombian merchant, and plays the payer on the bank page;
// with OPENPAY_MERCHANT_ID and OPENPAY_PRIVATE_KEY of a Colombian account
// set it runs against the Colombian sandbox and prints the bank page's
// address for you to open.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/examples/internal/exampleenv"
)

func main() { exampleenv.Main(run) }

func run(ctx context.Context, out io.Writer) error {
	return exampleenv.RunIn(ctx, out, openpay.CountryColombia, flow)
}

// returnURL is where the bank sends the payer back; the gateway adds
// &id=<charge id>.
const returnURL = "https://shop.example.co/checkout/return?order=3001"

func flow(ctx context.Context, env *exampleenv.Env, out io.Writer) error {
	c := env.Client
	payer := &openpay.ChargeCustomer{Name: "Camila", LastName: "Restrepo", Email: "camila.restrepo@example.co", PhoneNumber: "3004567890",
		CustomerAddress: &openpay.ColombianAddress{Department: "Antioquia", City: "Medellín", Additional: "Carrera 43A # 10-52, apto 801"}}

	ch, err := c.Charges.Create(ctx, openpay.PSECharge{
		Amount: openpay.MustAmount("119000"), IVA: openpay.MustAmount("19000"), Description: "Order 3001, PSE",
		OrderID: fmt.Sprintf("pse-%d", time.Now().UnixNano()), RedirectURL: returnURL, Customer: payer,
		ClientIP: env.PayerIP,
	})
	if err != nil {
		return fmt.Errorf("PSE charge: %w", err)
	}
	fmt.Fprintf(out, "PSE charge %s: %s, %s %s; send the payer to the bank page:\n  %s\n",
		ch.ID, ch.Status, ch.Amount, ch.Currency, ch.PaymentMethod.URL)
	if env.Sim == nil {
		fmt.Fprintln(out, "(open the page to pay; the charge stays charge_pending until the bank answers)")
		return nil
	}

	// The payer approves on the bank page and comes back to the shop.
	back, err := approveOnBankPage(ctx, ch.PaymentMethod.URL)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "the payer is back at", back)
	u, err := url.Parse(back)
	if err != nil {
		return err
	}
	// The shop reads only the id and asks the gateway what happened.
	paid, err := c.Charges.Get(ctx, u.Query().Get("id"))
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "charge %s is now %s\n", paid.ID, paid.Status)

	// A second payment, completed through the simulation control.
	second, err := c.Charges.Create(ctx, openpay.PSECharge{
		Amount: openpay.MustAmount("45000.50"), IVA: openpay.MustAmount("7185.79"), Description: "Order 3002, PSE",
		RedirectURL: returnURL, Customer: payer,
		ClientIP: env.PayerIP,
	})
	if err != nil {
		return fmt.Errorf("PSE charge: %w", err)
	}
	done, err := env.Sim.PayCharge(second.ID)
	if err != nil {
		return fmt.Errorf("simulating the bank: %w", err)
	}
	fmt.Fprintf(out, "charge %s, paid through the simulation control: %s\n", done.ID, done.Status)
	fmt.Fprintln(out, "merchant balance:", env.Sim.Balance(), "COP")
	return nil
}

var tokenRE = regexp.MustCompile(`name="token" value="([^"]+)"`)

// approveOnBankPage does what the payer's browser does on the reference
// server's bank page: open it and press "Approve payment". It returns where
// the page sends the browser (the shop's redirect_url with the id).
func approveOnBankPage(ctx context.Context, pageURL string) (string, error) {
	browser := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, pageURL, nil)
	if err != nil {
		return "", err
	}
	res, err := browser.Do(req)
	if err != nil {
		return "", err
	}
	page, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return "", err
	}
	m := tokenRE.FindSubmatch(page)
	if m == nil {
		return "", errors.New("the bank page has no form")
	}
	form := url.Values{"token": {string(m[1])}, "action": {"approve"}}
	req, err = http.NewRequestWithContext(ctx, http.MethodPost, pageURL, strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err = browser.Do(req)
	if err != nil {
		return "", err
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		return "", fmt.Errorf("the bank page answered %s", res.Status)
	}
	return res.Header.Get("Location"), nil
}
