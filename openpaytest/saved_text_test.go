package openpaytest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/openpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A shop registers customers and saves their cards, then reads them back
// after many other requests and after a restart: every text it sent (the
// customer's name, last name, e-mail, phone, external id and address, a
// card's holder and address) reads back as sent, byte for byte, whatever
// came after it (the server reads small bodies into storage it reuses and
// clears once each request is answered); the answer to each creation is
// the record as read back; an external id stays taken (2003), a number
// stays a duplicate on its customer (2002) until the card is deleted.
func TestSavedCustomersAndCardsKeepTheirTextAcrossRequests(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const id, key = "msavedtext0000000001", "sk_00000000000000000000000000000044"
	srv, err := openpaytest.Start(openpaytest.WithDataDir(dir), openpaytest.WithMerchant(id, key, ""))
	require.NoError(t, err)
	ctx := context.Background()
	client := func() *openpay.Client {
		c, err := openpay.New(id, key, openpay.WithBaseURL(srv.URL), openpay.WithDefaultClientIP(payerIP))
		require.NoError(t, err)
		return c
	}
	c := client()
	code := func(err error) openpay.Code {
		t.Helper()
		var oe *openpay.Error
		require.True(t, errors.As(err, &oe), "%v", err)
		return oe.Code
	}
	home := &openpay.Address{Line1: "Av. Reforma 222", Line2: "Piso 3", City: "Ciudad de México",
		State: "CDMX", PostalCode: "06600", CountryCode: "MX"}
	ana := openpay.CustomerRequest{Name: "Ana María", LastName: "López", Email: "ana.lopez@example.com",
		PhoneNumber: "5512345678", ExternalID: "cliente-0001", Address: home}
	created, err := c.Customers.Create(ctx, ana)
	require.NoError(t, err)
	card := func(holder, number string, addr *openpay.Address) openpay.CardRequest {
		return openpay.CardRequest{Card: openpay.CardDetails{HolderName: holder, CardNumber: number,
			CVV2: openpaytest.CVV(number), ExpirationMonth: "12", ExpirationYear: "30", Address: addr}, DeviceSessionID: "sesion-1"}
	}
	visa, err := c.Customer(created.ID).Cards.Create(ctx, card("Ana M. López", openpaytest.CardVisa, home))
	require.NoError(t, err)
	shopCard, err := c.Cards.Create(ctx, card("Tienda Centro", openpaytest.CardMastercard, nil))
	require.NoError(t, err)

	// Many requests of the same kinds and sizes after them, each with other
	// text in the same places.
	for i := range 40 {
		other, err := c.Customers.Create(ctx, openpay.CustomerRequest{Name: fmt.Sprintf("Otro %02d", i),
			LastName: "Pérez", Email: fmt.Sprintf("otro%02d@example.com", i), PhoneNumber: fmt.Sprintf("55000000%02d", i),
			ExternalID: fmt.Sprintf("cliente-1%03d", i), Address: &openpay.Address{Line1: fmt.Sprintf("Calle %02d", i),
				City: "Puebla", State: "PUE", PostalCode: "72000", CountryCode: "MX"}})
		require.NoError(t, err)
		_, err = c.Customer(other.ID).Cards.Create(ctx, card(fmt.Sprintf("Otro Titular %02d", i), openpaytest.CardVisa, nil))
		require.NoError(t, err)
		_, err = c.Cards.Create(ctx, card(fmt.Sprintf("Sucursal %02d", i), openpaytest.CardVisa, nil))
		require.NoError(t, err)
	}

	check := func(when string) {
		t.Helper()
		got, err := c.Customers.Get(ctx, created.ID)
		require.NoError(t, err, when)
		assert.Equal(t, created, got, "%s: the creation's answer is the customer as read back", when)
		assert.Equal(t, []string{"Ana María", "López", "ana.lopez@example.com", "5512345678", "cliente-0001"},
			[]string{got.Name, got.LastName, got.Email, got.PhoneNumber, got.ExternalID}, when)
		require.NotNil(t, got.Address, when)
		assert.Equal(t, *home, *got.Address, when)

		cards, err := c.Customer(created.ID).Cards.ListPage(ctx, nil)
		require.NoError(t, err, when)
		require.Len(t, cards, 1, when)
		assert.Equal(t, visa, cards[0], "%s: the card's answer is the card as listed back", when)
		assert.Equal(t, "Ana M. López", cards[0].HolderName, when)
		assert.Equal(t, "411111XXXXXX1111", cards[0].CardNumber, when)
		require.NotNil(t, cards[0].Address, when)
		assert.Equal(t, *home, *cards[0].Address, when)
		k, err := c.Cards.Get(ctx, shopCard.ID)
		require.NoError(t, err, when)
		assert.Equal(t, shopCard, k, when)
		assert.Equal(t, "Tienda Centro", k.HolderName, when)

		// The external id and the number stay taken.
		_, err = c.Customers.Create(ctx, openpay.CustomerRequest{Name: "Copia", Email: "copia@example.com", ExternalID: "cliente-0001"})
		assert.Equal(t, openpay.ErrExternalIDExists, code(err), when)
		_, err = c.Customer(created.ID).Cards.Create(ctx, card("Otra Mano", openpaytest.CardVisa, nil))
		assert.Equal(t, openpay.ErrCardExists, code(err), when)
	}
	check("after other requests")

	// A charge to the saved card; the books follow.
	before := srv.Balance()
	ch, err := c.Customer(created.ID).Charges.Create(ctx, openpay.CardCharge{SourceID: visa.ID, Amount: openpay.MustAmount("99.90"),
		Description: "Pedido A", OrderID: "saved-text-1", DeviceSessionID: "sesion-1"})
	require.NoError(t, err)
	require.NotNil(t, ch.Card)
	assert.Equal(t, "Ana M. López", ch.Card.HolderName)
	assert.Equal(t, before.Add(ch.Amount).String(), srv.Balance().String())
	balance := srv.Balance()
	srv.Close()

	// Restarted from its data directory, the server reads the same texts.
	srv = openpaytest.NewServer(t, openpaytest.WithDataDir(dir), openpaytest.WithMerchant(id, key, ""))
	c = client()
	assert.Equal(t, balance.String(), srv.Balance().String())
	check("after a restart")

	// Deleting frees the number on the customer; the card saved again keeps
	// its holder.
	require.NoError(t, c.Customer(created.ID).Cards.Delete(ctx, visa.ID))
	again, err := c.Customer(created.ID).Cards.Create(ctx, card("Ana López", openpaytest.CardVisa, nil))
	require.NoError(t, err)
	for range 5 {
		_, err = c.Cards.Create(ctx, card("Relleno Largo De Titular", openpaytest.CardVisa, nil))
		require.NoError(t, err)
	}
	got, err := c.Customer(created.ID).Cards.Get(ctx, again.ID)
	require.NoError(t, err)
	assert.Equal(t, again, got)
	assert.Equal(t, "Ana López", got.HolderName)
}

// A customer's required members: name and email absent, null (the last of
// a repeated member counts) or blank are each refused with 1001, naming the
// member, absent or null as "required", blank as "cannot be empty"; nothing
// is stored for a refused request.
func TestCustomerRequiredMembersByRawBody(t *testing.T) {
	t.Parallel()
	const id, key = "mrequiredmembers0001", "sk_00000000000000000000000000000045"
	srv := openpaytest.NewServer(t, openpaytest.WithMerchant(id, key, ""))
	post := func(body string) (int, openpay.Code, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/"+id+"/customers", strings.NewReader(body))
		require.NoError(t, err)
		req.SetBasicAuth(key, "")
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		var answer struct {
			Code        openpay.Code `json:"error_code"`
			Description string       `json:"description"`
		}
		require.NoError(t, json.NewDecoder(res.Body).Decode(&answer))
		return res.StatusCode, answer.Code, answer.Description
	}
	for _, c := range []struct{ body, desc string }{
		{`{"name":"Ana"}`, "The field 'email' is required"},
		{`{"email":"ana@example.com"}`, "The field 'name' is required"},
		{`{"name":null,"email":"ana@example.com"}`, "The field 'name' is required"},
		{`{"name":"Ana","email":"ana@example.com","name":null}`, "The field 'name' is required"},
		{`{"name":"Ana","email":null}`, "The field 'email' is required"},
		{`{"name":" ","email":"ana@example.com"}`, "The field 'name' is required and cannot be empty"},
		{`{"name":"Ana","email":""}`, "The field 'email' is required and cannot be empty"},
	} {
		status, code, desc := post(c.body)
		assert.Equal(t, http.StatusBadRequest, status, c.body)
		assert.Equal(t, openpay.ErrBadRequest, code, c.body)
		assert.Equal(t, c.desc, desc, c.body)
	}
	status, _, _ := post(`{"name":"Ana","email":"ana@example.com","name":"Ana María"}`)
	assert.Equal(t, http.StatusOK, status)
	c, err := openpay.New(id, key, openpay.WithBaseURL(srv.URL), openpay.WithDefaultClientIP(payerIP))
	require.NoError(t, err)
	list, err := c.Customers.ListPage(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, list, 1, "only the accepted customer is stored")
	assert.Equal(t, "Ana María", list[0].Name, "a repeated member is read as its last value")
}
