// Package webtest drives a real browser in tests: headless Chromium through
// chromedp. [Browser] finds the browser and starts it for a test, or skips
// the test saying why; [Tab] opens a page in it; [Await] waits for a page's
// script to publish a result.
//
// The browser is looked for at $CHROME, then chromium, chromium-browser,
// google-chrome and google-chrome-stable on PATH. .ci/run installs Debian's
// chromium package so that CI runs these tests.
package webtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/openpay-go/openpay/openpaytest"
)

// Timeout bounds a test's whole use of its browser: far above what the
// pages need, so that a hung browser fails the test instead of CI.
const Timeout = 2 * time.Minute

// browserNames are the executables tried on PATH, in order.
var browserNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// FindChrome returns the path of a Chromium or Chrome executable: $CHROME
// when set, else the first of chromium, chromium-browser, google-chrome
// and google-chrome-stable found on PATH. The error says where it looked.
func FindChrome() (string, error) {
	if p := os.Getenv("CHROME"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("$CHROME is %q, which does not exist", p)
		}
		return p, nil
	}
	for _, name := range browserNames {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no browser: $CHROME is unset and none of " + strings.Join(browserNames, ", ") +
		" is on PATH (on Debian: apt-get install chromium)")
}

// RequiredEnv names the environment variable that makes a missing browser
// a failure rather than a skip: CI sets it where it installs Chromium, so
// that the browser tests cannot silently stop running there.
const RequiredEnv = "OPENPAY_BROWSER_REQUIRED"

// Browser starts headless Chromium for the test and returns its context
// (pass it to [Tab]); the browser stops when the test ends. It skips the
// test, printing why, when no browser is installed or under go test
// -short, unless RequiredEnv is set, when a missing browser fails it.
func Browser(t testing.TB) context.Context {
	t.Helper()
	required := os.Getenv(RequiredEnv) != ""
	if testing.Short() && !required {
		t.Skip("browser test skipped under -short")
	}
	path, err := FindChrome()
	if err != nil {
		if required {
			t.Fatalf("no browser, and %s is set: %v", RequiredEnv, err)
		}
		t.Skip("browser test skipped: " + err.Error())
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		// Containers give /dev/shm little room.
		chromedp.Flag("disable-dev-shm-usage", true),
	}
	if os.Geteuid() == 0 {
		// Chromium refuses to run as root inside its sandbox.
		opts = append(opts, chromedp.NoSandbox)
	}
	ctx, cancelTimeout := context.WithTimeout(context.Background(), Timeout)
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	ctx, cancelBrowser := chromedp.NewContext(ctx)
	t.Cleanup(func() {
		cancelBrowser()
		cancelAlloc()
		cancelTimeout()
	})
	// The first Do starts the browser.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	return ctx
}

// Tab opens a new tab of the browser at url and returns its context; the
// tab closes when the test ends. The page's console output and uncaught
// exceptions go to the test log.
func Tab(t testing.TB, browser context.Context, url string) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser)
	// Events may still arrive while the tab closes, after the test has
	// ended, when logging to it would panic.
	var mu sync.Mutex
	closed := false
	t.Cleanup(func() {
		mu.Lock()
		closed = true
		mu.Unlock()
		cancel()
	})
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if !closed {
			t.Logf(format, args...)
		}
	}
	err := chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			args := make([]string, 0, len(ev.Args))
			for _, a := range ev.Args {
				if a.Value != nil {
					args = append(args, string(a.Value))
				} else {
					args = append(args, a.Description)
				}
			}
			logf("browser console.%s: %s", ev.Type, strings.Join(args, " "))
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			logf("browser exception at %s:%d: %s", d.URL, d.LineNumber+1, msg)
		}
	})
	if err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("opening the page: %v", err)
	}
	return ctx
}

// Await waits until the JavaScript expression is truthy on the page and
// returns its value decoded as T.
func Await[T any](t testing.TB, tab context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(tab, chromedp.Poll[T](expr, chromedp.WithPollingInterval(20*time.Millisecond)))
	if err != nil {
		t.Fatalf("waiting for %s: %v", expr, err)
	}
	return v
}

// Eval evaluates the JavaScript expression on the page and returns its
// value decoded as T.
func Eval[T any](t testing.TB, tab context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(tab, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// Do runs chromedp actions on the tab, failing the test on an error.
func Do(t testing.TB, tab context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(tab, actions...); err != nil {
		t.Fatalf("browser: %v", err)
	}
}

// PayCard types a card on the card form of a payment page (the gateway's
// hosted page, a payment link's, a checkout's) once it shows: the holder
// "Ana López", number, expiry 12/30 and the number's security code
// ([openpaytest.CVV]), then presses pay.
func PayCard(t testing.TB, tab context.Context, number string) {
	t.Helper()
	Do(t, tab,
		chromedp.WaitVisible(chromedp.ID("card_number")),
		chromedp.SendKeys(chromedp.ID("holder_name"), "Ana López"),
		chromedp.SendKeys(chromedp.ID("card_number"), number),
		chromedp.SendKeys(chromedp.ID("expiration_month"), "12"),
		chromedp.SendKeys(chromedp.ID("expiration_year"), "30"),
		chromedp.SendKeys(chromedp.ID("cvv2"), openpaytest.CVV(number)),
		chromedp.Click(chromedp.ID("pay")),
	)
}
