package web

import (
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync"
)

// parsed holds the templates of each directory once parsed, shared by every
// server of the process: parsing is most of what making a server cost, and a
// parsed html/template is safe for concurrent use and never changed after.
var parsed sync.Map // dir -> func() (map[string]*template.Template, error)

// sharedTemplates is parseTemplates done once per directory per process.
// funcs must not depend on the caller (every caller of a directory passes
// the same functions): the first caller's are the ones kept.
func sharedTemplates(fsys fs.FS, dir string, funcs template.FuncMap) (map[string]*template.Template, error) {
	once, ok := parsed.Load(dir)
	if !ok {
		once, _ = parsed.LoadOrStore(dir, sync.OnceValues(func() (map[string]*template.Template, error) {
			return parseTemplates(fsys, dir, funcs)
		}))
	}
	return once.(func() (map[string]*template.Template, error))()
}

// parseTemplates parses the HTML pages of a directory of fsys: each file but
// layout.html is one page, parsed together with layout.html, which it fills
// by defining "content". The pages are keyed by file name without .html.
func parseTemplates(fsys fs.FS, dir string, funcs template.FuncMap) (map[string]*template.Template, error) {
	names, err := fs.Glob(fsys, dir+"/*.html")
	if err != nil {
		return nil, err
	}
	pages := make(map[string]*template.Template, len(names))
	for _, n := range names {
		name := strings.TrimSuffix(path.Base(n), ".html")
		if name == "layout" {
			continue
		}
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(fsys, dir+"/layout.html", n)
		if err != nil {
			return nil, err
		}
		pages[name] = t
	}
	return pages, nil
}

// pageCSP is the Content-Security-Policy of every page unless it sends a
// stricter one (the dashboard's): no script at all, the layout's own
// inline style, images over http(s) only (a store receipt's barcode comes
// from the server's base URL, which may name another host than the page's
// address) and forms over http(s) only: a payment form posts to the page's
// server, whose answer redirects to the shop's redirect_url, and browsers
// hold a form's redirects to form-action too. No frame may hold a page,
// and no <base> may move its links.
const pageCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' http: https:; " +
	"form-action 'self' http: https:; frame-ancestors 'none'; base-uri 'none'"

// writePage renders t with v and writes it with the given status and the
// headers every page carries (no caching, no framing, no sniffing, the
// CSP) plus extra (name, value pairs, which replace those). The page is
// rendered before anything is written, so a template that fails (a
// programming error) gets a plain 500 rather than half a page.
func writePage(w http.ResponseWriter, status int, t *template.Template, v any, extra ...string) {
	var buf strings.Builder
	if t == nil || t.Execute(&buf, v) != nil {
		http.Error(w, "page template failed", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", pageCSP)
	for i := 0; i+1 < len(extra); i += 2 {
		h.Set(extra[i], extra[i+1])
	}
	w.WriteHeader(status)
	_, _ = w.Write([]byte(buf.String()))
}
