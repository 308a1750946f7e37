package web

import (
	"embed"
	"net/http"
	"sort"
)

//go:embed static/openpay.v1.js static/openpay-data.v1.js
var static embed.FS

// library maps each path the library is served at to its embedded file.
var library = map[string]string{
	"/openpay.v1.js":          "static/openpay.v1.js",
	"/openpay.v1.min.js":      "static/openpay.v1.js",
	"/openpay-data.v1.js":     "static/openpay-data.v1.js",
	"/openpay-data.v1.min.js": "static/openpay-data.v1.js",
}

// LibraryPaths lists the paths [ServeLibrary] answers, sorted.
func LibraryPaths() []string {
	paths := make([]string, 0, len(library))
	for p := range library {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}

// ServeLibrary answers a GET or HEAD request for one of the browser
// library's files and reports whether it did; it leaves every other
// request alone (and unanswered) for the caller.
func ServeLibrary(w http.ResponseWriter, r *http.Request) bool {
	name, ok := library[r.URL.Path]
	if !ok || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		return false
	}
	data, err := static.ReadFile(name)
	if err != nil {
		// The names are fixed above and embedded: a test reads every one.
		panic("web: embedded file missing: " + name)
	}
	h := w.Header()
	h.Set("Content-Type", "text/javascript; charset=utf-8")
	// Scripts are tag loads, which need no CORS; no-cache keeps a page
	// under test on the server's current library.
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(data)
	}
	return true
}
