package openpaytest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A shop's clients register customers at the same time, on many
// connections: with and without an account, with external ids, with texts
// that need escapes in the answer (quotes, a tab, accents, a line
// separator), members in any order, an address, a member repeated past
// the sixteen the server keeps for a request (the last one counts). Each
// answer is the customer its own body described, never a member of
// another request (the server keeps a body's members in storage it lends
// each request and takes back when it is answered); a second customer
// with a taken external id is refused with 2003, but a wrong e-mail is
// told first (1001); each customer reads back, alone and in the list,
// byte for byte as its creation answered, and so again after a restart
// from the data directory.
func TestCustomersCreatedAtOnceAnswerTheirOwnBodies(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const id, key = "mconcurrentcust00001", "sk_00000000000000000000000000000046"
	srv, err := openpaytest.Start(openpaytest.WithDataDir(dir), openpaytest.WithMerchant(id, key, ""))
	require.NoError(t, err)
	do := func(method, path, body string) (int, []byte) {
		t.Helper()
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, err := http.NewRequest(method, srv.URL+"/v1/"+id+path, rd)
		require.NoError(t, err)
		req.SetBasicAuth(key, "")
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		data, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return res.StatusCode, data
	}
	codeOf := func(data []byte) openpay.Code {
		var e struct {
			Code openpay.Code `json:"error_code"`
		}
		require.NoError(t, json.Unmarshal(data, &e), "%s", data)
		return e.Code
	}

	// What customer k of client g sends, and the texts its answer must carry.
	type sent struct {
		body                                   string
		name, lastName, email, phone, external string
		account, address                       bool
	}
	build := func(g, k int) sent {
		s := sent{name: fmt.Sprintf("Cliente \"%d-%d\"\tMéxico\u2028", g, k), lastName: strings.Repeat("López", k%4),
			email: fmt.Sprintf("c%d.%d@example.com", g, k), phone: fmt.Sprintf("55%08d", g*1000+k),
			account: k%3 == 0, address: k%4 == 1}
		if k%2 == 0 {
			s.external = fmt.Sprintf("ext-%d-%d", g, k)
		}
		name, _ := json.Marshal(s.name)
		members := []string{`"email":"` + s.email + `"`, `"name":` + string(name), `"phone_number":"` + s.phone + `"`}
		if s.lastName != "" {
			members = append(members, `"last_name":"`+s.lastName+`"`)
		}
		if s.external != "" {
			members = append(members, `"external_id":"`+s.external+`"`)
		}
		if s.account {
			members = append(members, `"requires_account":true`)
		}
		if s.address {
			members = append(members, fmt.Sprintf(`"address":{"line1":"Calle %d","city":"Puebla","state":"PUE","postal_code":"72000","country_code":"MX"}`, k))
		}
		for range k % len(members) { // members in another order
			members = append(members[1:], members[0])
		}
		if k%5 == 4 { // more members than the server keeps for a request: the last name counts
			for i := range 20 {
				members = append([]string{fmt.Sprintf(`"name":"otro %d"`, i)}, members...)
			}
		}
		s.body = "{" + strings.Join(members, ",") + "}"
		return s
	}

	const clients, each = 8, 25
	answers := make([][][]byte, clients)
	var wg sync.WaitGroup
	for g := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range each {
				s := build(g, k)
				status, data := do(http.MethodPost, "/customers", s.body)
				if !assert.Equal(t, http.StatusOK, status, "%s: %s", s.body, data) {
					return
				}
				var cu openpay.Customer
				if !assert.NoError(t, json.Unmarshal(data, &cu)) {
					return
				}
				assert.Equal(t, []string{s.name, s.lastName, s.email, s.phone, s.external},
					[]string{cu.Name, cu.LastName, cu.Email, cu.PhoneNumber, cu.ExternalID}, "%s", s.body)
				assert.Equal(t, s.account, cu.CLABE != "" && cu.Store != nil, "%s", s.body)
				if assert.Equal(t, s.address, cu.Address != nil, "%s", s.body) && s.address {
					assert.Equal(t, fmt.Sprintf("Calle %d", k), cu.Address.Line1)
				}
				answers[g] = append(answers[g], data)
			}
		}()
	}
	wg.Wait()
	require.False(t, t.Failed())

	// An external id is taken; an e-mail that is not one is told first.
	status, data := do(http.MethodPost, "/customers", `{"name":"Copia","email":"copia@example.com","external_id":"ext-3-4"}`)
	assert.Equal(t, http.StatusConflict, status)
	assert.Equal(t, openpay.ErrExternalIDExists, codeOf(data), "%s", data)
	status, data = do(http.MethodPost, "/customers", `{"name":"Copia","email":"no es correo","external_id":"ext-3-4"}`)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, openpay.ErrBadRequest, codeOf(data), "%s", data)

	// Each reads back byte for byte, alone and in the list (newest first).
	check := func(when, oldURL string) {
		t.Helper()
		byID := map[string][]byte{}
		for offset := 0; offset < clients*each; offset += 100 {
			_, list := do(http.MethodGet, fmt.Sprintf("/customers?limit=100&offset=%d", offset), "")
			var listed []json.RawMessage
			require.NoError(t, json.Unmarshal(list, &listed), when)
			for _, l := range listed {
				var cu openpay.Customer
				require.NoError(t, json.Unmarshal(l, &cu))
				byID[cu.ID] = l
			}
		}
		require.Equal(t, clients*each, len(byID), when)
		for g := range clients {
			for _, want := range answers[g] {
				want = bytes.ReplaceAll(want, []byte(oldURL), []byte(srv.URL)) // the barcode's address is the server's
				var cu openpay.Customer
				require.NoError(t, json.Unmarshal(want, &cu))
				status, got := do(http.MethodGet, "/customers/"+cu.ID, "")
				require.Equal(t, http.StatusOK, status, when)
				assert.Equal(t, string(want), string(got), "%s: read back", when)
				assert.Equal(t, strings.TrimSuffix(string(want), "\n"), string(byID[cu.ID]), "%s: listed", when)
			}
		}
		_, byExt := do(http.MethodGet, "/customers?external_id=ext-5-10", "")
		var found []openpay.Customer
		require.NoError(t, json.Unmarshal(byExt, &found), when)
		if assert.Len(t, found, 1, when) {
			assert.Equal(t, build(5, 10).name, found[0].Name, when)
		}
	}
	check("after the creations", srv.URL)
	oldURL := srv.URL
	srv.Close()

	srv = openpaytest.NewServer(t, openpaytest.WithDataDir(dir), openpaytest.WithMerchant(id, key, ""))
	check("after a restart", oldURL)
	status, data = do(http.MethodPost, "/customers", `{"name":"Copia","email":"copia@example.com","external_id":"ext-7-24"}`)
	assert.Equal(t, http.StatusConflict, status, "%s", data)
}
