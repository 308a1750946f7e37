package web

import (
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

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

// writePage renders t with v and writes it with the given status and the
// headers every page carries (no caching, no framing) plus extra (name,
// value pairs). The page is rendered before anything is written, so a
// template that fails (a programming error) gets a plain 500 rather than
// half a page.
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
	for i := 0; i+1 < len(extra); i += 2 {
		h.Set(extra[i], extra[i+1])
	}
	w.WriteHeader(status)
	_, _ = w.Write([]byte(buf.String()))
}
