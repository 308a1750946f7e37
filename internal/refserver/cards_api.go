package refserver

import "net/http"

// registerCards registers stored cards at merchant and customer scope.
func (s *Server) registerCards(r *routeTable) {
	r.add("listCards", http.MethodGet, "/v1/{merchant_id}/cards", http.StatusOK, notImplemented)
	r.add("createCard", http.MethodPost, "/v1/{merchant_id}/cards", http.StatusOK, notImplemented).allowPublicKey()
	r.add("getCard", http.MethodGet, "/v1/{merchant_id}/cards/{card_id}", http.StatusOK, notImplemented)
	r.add("updateCard", http.MethodPut, "/v1/{merchant_id}/cards/{card_id}", http.StatusOK, notImplemented)
	r.add("deleteCard", http.MethodDelete, "/v1/{merchant_id}/cards/{card_id}", http.StatusNoContent, notImplemented)
	r.add("getCardPoints", http.MethodGet, "/v1/{merchant_id}/cards/{card_id}/points", http.StatusOK, notImplemented)
	r.add("listCustomerCards", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}/cards", http.StatusOK, notImplemented)
	r.add("createCustomerCard", http.MethodPost, "/v1/{merchant_id}/customers/{customer_id}/cards", http.StatusOK, notImplemented).allowPublicKey()
	r.add("getCustomerCard", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}/cards/{card_id}", http.StatusOK, notImplemented)
	r.add("updateCustomerCard", http.MethodPut, "/v1/{merchant_id}/customers/{customer_id}/cards/{card_id}", http.StatusOK, notImplemented)
	r.add("deleteCustomerCard", http.MethodDelete, "/v1/{merchant_id}/customers/{customer_id}/cards/{card_id}", http.StatusNoContent, notImplemented)
	r.add("getCustomerCardPoints", http.MethodGet, "/v1/{merchant_id}/customers/{customer_id}/cards/{card_id}/points", http.StatusOK, notImplemented)
}
