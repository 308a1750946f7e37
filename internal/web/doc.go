// Package web holds what the reference server serves to browsers: the
// browser library, the hosted pages, and the dashboard (dashboard.go: the
// server's state and simulation controls at /_dashboard/, rendered from
// the view structs the server fills). It knows nothing of the server's
// state and does not import it; the server (internal/refserver, browser.go)
// calls in ahead of its API routes.
//
// # The browser library
//
// static/openpay.v1.js and static/openpay-data.v1.js are our own browser
// library, written from the documented behaviour of the gateway's
// Openpay.js and keeping its public API (OpenPay.setId, setApiKey,
// setSandboxMode, token.create, token.extractFormAndCreate, the
// OpenPay.card validation helpers, and deviceData.setup in the data file),
// so that a page under test changes only its script URLs. [ServeLibrary]
// serves them at the paths the gateway's script host uses
// (openpay.s3.amazonaws.com/openpay.v1.min.js and
// /openpay-data.v1.min.js), with and without ".min"; see [LibraryPaths].
// The library sends its requests to the server it was loaded from.
//
// The files are embedded, so the server binary carries them.
//
// # Serving
//
// The reference server calls [ServeLibrary] first thing for every request
// (refserver's serveWeb, in browser.go); what it does not answer goes on to
// the API. Other content of this package joins it there.
//
// # Tests
//
// The browser tests of these pages are in the nested module tests/
// (tests/web), which requires chromedp so that the SDK's module does not;
// its package webtest drives headless Chromium for them, and they skip,
// saying why, where no browser is installed.
package web
