package refserver

import (
	"net/http"
	"time"

	"github.com/openpay-go/openpay"
	"github.com/openpay-go/openpay/internal/refserver/countryrules"
	"github.com/openpay-go/openpay/internal/refserver/fieldrules"
	"github.com/openpay-go/openpay/internal/refserver/listquery"
	"github.com/openpay-go/openpay/internal/refserver/reqbody"
)

// Customers of a merchant (/v1/{merchant_id}/customers), and through the
// same handlers a group's own customers (registered in groups_api.go, which
// says what differs at group scope). The record and its
// creation (newCustomer: external_id unique, 2003; requires_account gives a
// balance, a CLABE and a store reference whose barcode the server serves)
// are in store.go.
//
// Rules, from the facts and openapi.yaml where they speak, chosen where
// they do not:
//
//   - create: name and email required (1001); name, last_name, email,
//     phone_number and external_id at most 100 characters, email an e-mail
//     address, address complete (1003, or 1001 for a missing member);
//   - update (PUT) replaces name, last_name, email, phone_number and address
//     with what is sent (a member left out is cleared), as the gateway does;
//     external_id and requires_account cannot change: sending them with a
//     different value answers 1003, with the same value is accepted;
//   - delete: refused with 1003 while the customer's balance is above zero,
//     and while a payout of the customer is in_progress (its money would
//     come back to a deleted account); otherwise the customer is marked
//     deleted (gone from reads and lists, 1005 afterwards; its external_id
//     free again; its transactions kept), every resource state that listens
//     for deletions acts (the customer's subscriptions are cancelled), and
//     the answer is 204;
//   - list: newest first, the common filters and external_id.
//
// The code of a refused deletion: the interface documents none ("expect a
// 4xx"). 1003 (HTTP 422, request) is the server's answer to every request
// the state of a resource refuses; 3006 is a card code (category gateway)
// that clients treat as a decline, which this is not.

// registerCustomers registers customers of a merchant: create, get, update,
// delete, list (with the external_id filter).
func (s *Server) registerCustomers(r *routeTable) {
	r.add("listCustomers", http.MethodGet, "/v1/{merchant_id}/customers", http.StatusOK, s.listCustomers)
	r.add("createCustomer", http.MethodPost, "/v1/{merchant_id}/customers", http.StatusOK, s.createCustomer)
	r.add("getCustomer", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}", http.StatusOK, s.getCustomer)
	r.add("updateCustomer", http.MethodPut, "/v1/{merchant_id}/customers/{customer_id}", http.StatusOK, s.updateCustomer)
	r.add("deleteCustomer", http.MethodDelete, "/v1/{merchant_id}/customers/{customer_id}", http.StatusNoContent, s.deleteCustomer)
}

// createCustomer creates a customer.
func (s *Server) createCustomer(c *call) (any, *Error) {
	f, e := readBody(c, false)
	if e != nil {
		return nil, e
	}
	var req openpay.CustomerRequest // its strings views of the body: newCustomer copies them
	if e := f.Borrow().IntoCustomerRequest(&req); e != nil {
		return nil, e
	}
	if e := fieldrules.Customer(f, req.Name, req.LastName, req.Email, req.PhoneNumber, req.Address, req.CustomerAddress); e != nil {
		return nil, e
	}
	var v reqbody.Checker
	if f.Has("external_id") {
		v.NonEmpty("external_id", req.ExternalID)
	}
	v.MaxLen("external_id", req.ExternalID, 100)
	if c.g != nil && req.RequiresAccount {
		// See groups_api.go: no merchant of a group could fund such an account.
		v.Failf(openpay.ErrInvalidParameter, descGroupAccount)
	}
	if v.Err != nil {
		return nil, v.Err
	}
	defer c.lock()()
	cu, e := s.newCustomer(c.customers(), c.m, c.fixedID(), req)
	if e != nil {
		return nil, e
	}
	if c.m != nil && c.m.country != countryrules.Mexico && cu.hasAccount() {
		cu.clabe = "" // a CLABE is a Mexican account number
	}
	c.customer = cu.wire(c.baseURL()) // kept in the call, as answerCard keeps a card
	return &c.customer, nil
}

// getCustomer answers a customer.
func (s *Server) getCustomer(c *call) (any, *Error) {
	defer c.lock()()
	cu, e := c.scopeCustomer()
	if e != nil {
		return nil, e
	}
	return cu.wire(c.baseURL()), nil
}

// updateCustomer replaces a customer's data.
func (s *Server) updateCustomer(c *call) (any, *Error) {
	f, e := readBody(c, false)
	if e != nil {
		return nil, e
	}
	var req openpay.CustomerUpdateRequest
	if e := f.Into(&req); e != nil {
		return nil, e
	}
	// Members that cannot change, read to compare.
	var fixed struct {
		ExternalID      string `json:"external_id"`
		RequiresAccount bool   `json:"requires_account"`
	}
	if e := f.Into(&fixed); e != nil {
		return nil, e
	}
	if e := fieldrules.Customer(f, req.Name, req.LastName, req.Email, req.PhoneNumber, req.Address, req.CustomerAddress); e != nil {
		return nil, e
	}
	defer c.lock()()
	cu, e := c.scopeCustomer()
	if e != nil {
		return nil, e
	}
	if f.Has("external_id") && fixed.ExternalID != cu.ExternalID() {
		return nil, errorf(openpay.ErrInvalidParameter, "The field 'external_id' cannot be changed")
	}
	if f.Has("requires_account") && fixed.RequiresAccount != cu.hasAccount() {
		return nil, errorf(openpay.ErrInvalidParameter, "The field 'requires_account' cannot be changed")
	}
	// A new address value, never a change to the stored one: answers
	// encoded after the lock is released may still point at the old one.
	cu.setText(cu.id(), req.Name, req.LastName, req.Email, req.PhoneNumber, cu.ExternalID())
	cu.address = req.Address
	cu.customerAddress = req.CustomerAddress
	c.customers().mark(cu.id())
	return cu.wire(c.baseURL()), nil
}

// deleteCustomer deletes a customer with no money in its balance.
func (s *Server) deleteCustomer(c *call) (any, *Error) {
	defer c.lock()()
	cu, e := c.scopeCustomer()
	if e != nil {
		return nil, e
	}
	if cu.hasAccount() && cu.balance.IsPositive() {
		return nil, errorf(openpay.ErrInvalidParameter,
			"The customer cannot be deleted while its balance (%s) is above zero", cu.balance)
	}
	e = c.eachMerchant(func(m *merchant) *Error {
		for _, t := range m.txList {
			if t.typ() == openpay.TransactionTypePayout && t.customerID() == cu.id() &&
				t.status() == openpay.TransactionStatusInProgress {
				return errorf(openpay.ErrInvalidParameter, "The customer cannot be deleted while its payout '%s' is in progress", t.id())
			}
		}
		return nil
	})
	if e != nil {
		return nil, e
	}
	cu.deleted = true
	c.customers().mark(cu.id())
	if cs := c.customers(); cu.ExternalID() != "" && cs.externalID[cu.ExternalID()] == cu {
		delete(cs.externalID, cu.ExternalID())
	}
	_ = c.eachMerchant(func(m *merchant) *Error {
		s.notifyCustomerDeleted(m, cu.id())
		return nil
	})
	return nil, nil
}

// listCustomers lists the merchant's customers, newest first, with the
// common filters and external_id.
func (s *Server) listCustomers(c *call) (any, *Error) {
	q := c.query
	p, e := listquery.Parse(q, zoneOf(c.m))
	if e != nil {
		return nil, e
	}
	externalID := q.Get("external_id")
	base := c.baseURL()
	defer c.lock()()
	cs := c.customers()
	recs := cs.list
	if externalID != "" { // unique among live customers: the index has the one there may be
		recs = nil
		if cu := cs.externalID[externalID]; cu != nil {
			recs = []*customer{cu}
		}
	}
	return listquery.Page(p, recs, func(cu *customer) (time.Time, bool) {
		return cu.created, !cu.deleted && (externalID == "" || cu.ExternalID() == externalID)
	}, func(cu *customer) openpay.Customer { return cu.wire(base) }), nil
}
