package refserver

import (
	"net/http"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/clabe"
	"github.com/openpay-go/openpay/internal/refserver/fieldrules"
	"github.com/openpay-go/openpay/internal/refserver/idgen"
	"github.com/openpay-go/openpay/internal/refserver/listquery"
)

// Bank accounts stored on a customer (/customers/{customer_id}/bankaccounts)
// or on the merchant itself (/v1/{merchant_id}/bankaccounts, which the Java
// and .NET SDKs call; Java marks its create and delete deprecated), the
// destinations of payouts by destination_id. One set of handlers serves
// both scopes: an account of the merchant has no customer, and each scope
// sees only its own accounts.
//
// Rules: holder_name and clabe required (1001); holder_name at most 80
// characters, alias at most 45, clabe at most 45 (1003); the CLABE must be
// 18 digits with a valid check digit (1003 naming clabe); a CLABE already on
// the accounts of the same owner (the customer, or the merchant) answers
// 2001. Answers show the CLABE masked (bank
// code and last five digits) and the bank's code and name from the
// catalogue. The catalogue the server carries is partial: a valid CLABE of a
// bank it does not list is accepted, with the bank code of the CLABE and
// the name DESCONOCIDO, as the gateway names a bank it cannot place.
// Deleting answers 204; transactions that used the account keep their copy
// of it.

// bankAccount is a stored bank account.
type bankAccount struct {
	id         string
	customerID string // "" for an account of the merchant
	created    time.Time
	holder     string
	alias      string
	clabe      string // full; answers show it masked
	bankCode   string
	bankName   string
	deleted    bool
}

// wire returns the account's wire form, CLABE masked.
func (b *bankAccount) wire() openpay.BankAccount {
	return openpay.BankAccount{
		ID: b.id, CreationDate: b.created, HolderName: b.holder, Alias: b.alias,
		CLABE: clabe.Mask(b.clabe), BankCode: b.bankCode, BankName: b.bankName,
	}
}

// bankAccountState is a merchant's bank accounts (see extState).
type bankAccountState struct {
	byID map[string]*bankAccount
	list []*bankAccount // creation order
}

func newBankAccountState() *bankAccountState {
	return &bankAccountState{byID: make(map[string]*bankAccount)}
}

// bankAccounts returns the merchant's bank accounts. The caller holds m.mu.
func bankAccounts(m *merchant) *bankAccountState { return extState(m, newBankAccountState) }

// registerBankAccounts registers bank accounts stored on a customer or on the merchant.
func (s *Server) registerBankAccounts(r *routeTable) {
	r.add("listBankAccounts", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}/bankaccounts", http.StatusOK, s.listBankAccounts)
	r.add("createBankAccount", http.MethodPost, "/v1/{merchant_id}/customers/{customer_id}/bankaccounts", http.StatusOK, s.createBankAccount)
	r.add("getBankAccount", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}/bankaccounts/{bank_account_id}", http.StatusOK, s.getBankAccount)
	r.add("deleteBankAccount", http.MethodDelete, "/v1/{merchant_id}/customers/{customer_id}/bankaccounts/{bank_account_id}", http.StatusNoContent, s.deleteBankAccount)
	r.add("listMerchantBankAccounts", http.MethodGet, "/v1/{merchant_id}/bankaccounts", http.StatusOK, s.listBankAccounts)
	r.add("createMerchantBankAccount", http.MethodPost, "/v1/{merchant_id}/bankaccounts", http.StatusOK, s.createBankAccount)
	r.add("getMerchantBankAccount", http.MethodGet, "/v1/{merchant_id}/bankaccounts/{bank_account_id}", http.StatusOK, s.getBankAccount)
	r.add("deleteMerchantBankAccount", http.MethodDelete, "/v1/{merchant_id}/bankaccounts/{bank_account_id}", http.StatusNoContent, s.deleteBankAccount)
}

// createBankAccount stores a bank account on the customer of the path, or
// on the merchant.
func (s *Server) createBankAccount(c *call) (any, *Error) {
	f, e := readBody(c, false)
	if e != nil {
		return nil, e
	}
	var req openpay.BankAccountRequest
	if e := f.Into(&req); e != nil {
		return nil, e
	}
	code, name, e := fieldrules.BankAccount(f, "", req)
	if e != nil {
		return nil, e
	}
	m := c.m
	m.mu.Lock()
	defer m.mu.Unlock()
	cu, e := c.scopeCustomer()
	if e != nil {
		return nil, e
	}
	bs := bankAccounts(m)
	for _, b := range bs.list {
		if b.customerID == ownerID(cu) && !b.deleted && b.clabe == req.CLABE {
			return nil, errorf(openpay.ErrBankAccountExists, "The owner already has a bank account with this CLABE")
		}
	}
	b := &bankAccount{
		id: s.ids.NewID(idgen.KindBankAccount), customerID: ownerID(cu), created: s.nowFor(m),
		holder: req.HolderName, alias: req.Alias, clabe: req.CLABE, bankCode: code, bankName: name,
	}
	bs.byID[b.id] = b
	bs.list = append(bs.list, b)
	m.mark(recBankAccount, b.id)
	return b.wire(), nil
}

// scopeBankAccount returns the bank account the path names, on the
// customer of the path (the merchant's own on a merchant path), or 1005. The caller holds c.m.mu.
func (c *call) scopeBankAccount() (*bankAccount, *Error) {
	cu, e := c.scopeCustomer()
	if e != nil {
		return nil, e
	}
	id := c.param("bank_account_id")
	b := bankAccounts(c.m).byID[id]
	if b == nil || b.deleted || b.customerID != ownerID(cu) {
		return nil, errNotFound("bank account", id)
	}
	return b, nil
}

// getBankAccount answers a bank account.
func (s *Server) getBankAccount(c *call) (any, *Error) {
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	b, e := c.scopeBankAccount()
	if e != nil {
		return nil, e
	}
	return b.wire(), nil
}

// deleteBankAccount deletes a bank account.
func (s *Server) deleteBankAccount(c *call) (any, *Error) {
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	b, e := c.scopeBankAccount()
	if e != nil {
		return nil, e
	}
	b.deleted = true
	c.m.mark(recBankAccount, b.id)
	return nil, nil
}

// listBankAccounts lists the bank accounts of the customer, or of the
// merchant, newest first.
func (s *Server) listBankAccounts(c *call) (any, *Error) {
	p, e := listquery.Parse(c.query, zoneOf(c.m))
	if e != nil {
		return nil, e
	}
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	cu, e := c.scopeCustomer()
	if e != nil {
		return nil, e
	}
	return listquery.Page(p, bankAccounts(c.m).list, func(b *bankAccount) (time.Time, bool) {
		return b.created, b.customerID == ownerID(cu) && !b.deleted
	}, (*bankAccount).wire), nil
}
