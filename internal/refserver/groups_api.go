package refserver

import (
	"net/http"
)

// A merchant group's own customers (/v1/groups/{group_id}/customers), their
// cards, and their charges at a merchant of the group
// (/v1/groups/{group_id}/merchants/{merchant_id}/customers/{customer_id}/charges).
//
// Every operation is served by the handler of its merchant counterpart
// (customers_api.go, cards_api.go, charges_api.go): those handlers read
// customers and cards through c.customers and c.cards and lock through
// c.lock, which on group paths are the group's customers, the group's cards
// and the group's lock before the merchant's. The rules are therefore the
// merchant ones (external_id unique within the group, 2003; Luhn 2004,
// expiry 2005, CVV 2006/2009, duplicate card 2002, masking; charge
// variants, capture, refund, 1006). What differs, and why:
//
//   - Authentication (server.go): the group's key, 1002 for any other key
//     (a merchant's own key included) and for a merchant that is not in the
//     group.
//   - A group customer cannot have an account (requires_account true
//     answers 1003): its charges are transactions of the merchant that
//     makes them, so no merchant of the group could fund or debit a
//     balance of the group's.
//   - Cards from tokens: a group has no tokens of its own (tokens are
//     created at /v1/{merchant_id}/tokens), and openapi.yaml lets the group
//     card creation take a TokenCardRequest, so a token of any merchant of
//     the group is accepted and consumed; a token of another merchant is not
//     found (1005).
//   - Card update: merchant_id is required (section 4.4: "required when
//     using a merchant group") and must be a merchant of the group (1003).
//   - Charges: a group customer's charge at a merchant of the group is a
//     transaction of that merchant (its order_id unique across that
//     merchant's transactions, 1006; listed at the merchant's
//     /charges; credited to the merchant's balance; refunds debit it). The
//     customer's stored cards are the group's; a token of that merchant or
//     inline card data may be used too. Capture and refund at this scope
//     find only that customer's charges at that merchant.
//   - Deletion cancels what each merchant of the group holds for the
//     customer (its subscriptions), merchant by merchant in id order.
//
// Merchant-level charges through the group (.../merchants/{merchant_id}/
// charges) are registered by charges_api.go. As on the gateway, charges
// through the group are only created, captured and refunded there: reading,
// listing and cancelling them, and a group card's points, have no group
// route, so those requests get the unknown-path or 405 answer.

// registerGroups registers a merchant group's customers, their cards and
// their charges at a merchant of the group.
func (s *Server) registerGroups(r *routeTable) {
	r.add("listGroupCustomers", http.MethodGet, "/v1/groups/{group_id}/customers", http.StatusOK, s.listCustomers)
	r.add("createGroupCustomer", http.MethodPost, "/v1/groups/{group_id}/customers", http.StatusOK, s.createCustomer)
	r.add("getGroupCustomer", http.MethodGet, "/v1/groups/{group_id}/customers/{customer_id}", http.StatusOK, s.getCustomer)
	r.add("updateGroupCustomer", http.MethodPut, "/v1/groups/{group_id}/customers/{customer_id}", http.StatusOK, s.updateCustomer)
	r.add("deleteGroupCustomer", http.MethodDelete, "/v1/groups/{group_id}/customers/{customer_id}", http.StatusNoContent, s.deleteCustomer)
	r.add("listGroupCustomerCards", http.MethodGet, "/v1/groups/{group_id}/customers/{customer_id}/cards", http.StatusOK, s.listCards)
	// A group has a single key: there is no public key to allow.
	r.add("createGroupCustomerCard", http.MethodPost, "/v1/groups/{group_id}/customers/{customer_id}/cards", http.StatusOK, s.createCard)
	r.add("getGroupCustomerCard", http.MethodGet, "/v1/groups/{group_id}/customers/{customer_id}/cards/{card_id}", http.StatusOK, s.getCard)
	r.add("updateGroupCustomerCard", http.MethodPut, "/v1/groups/{group_id}/customers/{customer_id}/cards/{card_id}", http.StatusOK, s.updateCard)
	r.add("deleteGroupCustomerCard", http.MethodDelete, "/v1/groups/{group_id}/customers/{customer_id}/cards/{card_id}", http.StatusNoContent, s.deleteCard)
	r.add("createGroupMerchantCustomerCharge", http.MethodPost, "/v1/groups/{group_id}/merchants/{merchant_id}/customers/{customer_id}/charges", http.StatusOK, s.createCharge).needsClientIP()
	r.add("captureGroupMerchantCustomerCharge", http.MethodPost, "/v1/groups/{group_id}/merchants/{merchant_id}/customers/{customer_id}/charges/{transaction_id}/capture", http.StatusOK, s.captureCharge)
	r.add("refundGroupMerchantCustomerCharge", http.MethodPost, "/v1/groups/{group_id}/merchants/{merchant_id}/customers/{customer_id}/charges/{transaction_id}/refund", http.StatusOK, s.refundCharge)
}
