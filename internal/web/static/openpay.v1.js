/*
 * openpay.v1.js: the browser library of the openpay-go reference server.
 *
 * Written for openpay-go from the documented behaviour of the gateway's
 * Openpay.js, whose public API it keeps (OpenPay.setId, setApiKey,
 * setSandboxMode, token.create, token.extractFormAndCreate, card validation
 * helpers; deviceData.setup comes with openpay-data.v1.js), so that a page
 * under test changes only its script URLs. It talks to the server it was
 * loaded from: OpenPay.hostname and OpenPay.sandboxHostname both start as
 * that server's address followed by /v1/.
 */
(function (global) {
  'use strict';

  var script = document.currentScript;
  var origin = script && script.src ? new URL(script.src, global.location.href).origin : global.location.origin;
  var apiBase = origin + '/v1/';
  var timeoutMs = 40000;

  var OpenPay = {
    version: 1,
    sandboxMode: false,
    developMode: false,
    hostname: apiBase,
    sandboxHostname: apiBase,
    developHostname: apiBase
  };

  // error answers the failure callback the way the gateway's library does:
  // {message, status, data}, data being the parsed error object when the
  // answer carried one.
  function error(callback, message, status, text) {
    var data = null;
    if (text) {
      try {
        data = JSON.parse(text);
      } catch (e) {
        message = 'Response error';
      }
    }
    if (typeof callback === 'function') {
      callback({
        message: message,
        status: status || 0,
        data: data,
        toString: function () { return this.message + ' [status ' + this.status + ']'; }
      });
    }
  }

  // xhr sends one request with the key as HTTP Basic credentials and
  // withCredentials set, as the gateway's library does, and calls done with
  // the status and the response text (status 0 when nothing came back).
  function xhr(method, url, key, body, done) {
    var req = new XMLHttpRequest();
    req.open(method, url, true);
    req.withCredentials = true;
    req.timeout = timeoutMs;
    req.setRequestHeader('Accept', 'application/json');
    req.setRequestHeader('Content-Type', 'application/json');
    if (key) {
      req.setRequestHeader('Authorization', 'Basic ' + global.btoa(key + ':'));
    }
    req.onload = function () { done(req.status, req.responseText, ''); };
    req.onerror = function () { done(0, '', 'Request error'); };
    req.ontimeout = function () { done(0, '', 'Timeout after ' + timeoutMs + ' milliseconds'); };
    req.send(body === undefined ? null : JSON.stringify(body));
  }

  function validCredentials(failure) {
    if (typeof OpenPay.id !== 'string' || !/^[a-z0-9]+$/i.test(OpenPay.id)) {
      error(failure, 'Empty or invalid Openpay ID', 0);
      return false;
    }
    if (typeof OpenPay.key !== 'string' || !/^pk_[a-z0-9]+$/i.test(OpenPay.key)) {
      error(failure, 'Empty or invalid Openpay API Key', 0);
      return false;
    }
    return true;
  }

  // send posts data to an endpoint of the merchant with the public key.
  function send(endpoint, data, success, failure) {
    if (!validCredentials(failure)) {
      return;
    }
    xhr('POST', OpenPay._hostname() + OpenPay.id + '/' + endpoint, OpenPay.key, data, function (status, text, problem) {
      if (problem) {
        error(failure, problem, status);
        return;
      }
      if (status < 200 || status >= 300) {
        error(failure, 'Request error', status, text);
        return;
      }
      var parsed;
      try {
        parsed = JSON.parse(text);
      } catch (e) {
        error(failure, 'Response error (JSON parse failed)', status);
        return;
      }
      if (typeof success === 'function') {
        success({ data: parsed, status: 200 });
      }
    });
  }

  OpenPay._hostname = function () {
    if (OpenPay.sandboxMode) {
      return OpenPay.sandboxHostname;
    }
    return OpenPay.developMode ? OpenPay.developHostname : OpenPay.hostname;
  };
  // _xhr and _validCredentials serve openpay-data.v1.js; they are not part
  // of the public API.
  OpenPay._xhr = xhr;
  OpenPay._validCredentials = validCredentials;

  OpenPay.setSandboxMode = function (on) {
    OpenPay.sandboxMode = !!on;
    if (on) {
      OpenPay.developMode = false;
    }
  };
  OpenPay.getSandboxMode = function () { return OpenPay.sandboxMode; };
  OpenPay.setDevelopMode = function (on) {
    OpenPay.developMode = !!on;
    if (on) {
      OpenPay.sandboxMode = false;
    }
  };
  OpenPay.getDevelopMode = function () { return OpenPay.developMode; };
  OpenPay.setId = function (id) { OpenPay.id = id; };
  OpenPay.getId = function () { return OpenPay.id; };
  OpenPay.setApiKey = function (key) { OpenPay.key = key; };
  OpenPay.getApiKey = function () { return OpenPay.key; };

  // extractFormInfo reads the card from the fields of a form marked with
  // data-openpay-card="<member>", and its address from the fields marked
  // with data-openpay-card-address="<member>". form is an element, a jQuery
  // object or an element id.
  OpenPay.extractFormInfo = function (form) {
    if (global.jQuery && form instanceof global.jQuery) {
      form = form[0];
    } else if (!(form && form.nodeType === 1)) {
      form = document.getElementById(form);
    }
    if (!form) {
      throw 'form not found';
    }
    var collect = function (attr) {
      var out = {};
      var fields = form.querySelectorAll('[' + attr + ']');
      for (var i = 0; i < fields.length; i++) {
        out[fields[i].getAttribute(attr)] = fields[i].value || '';
      }
      return { values: out, count: fields.length };
    };
    var card = collect('data-openpay-card').values;
    var address = collect('data-openpay-card-address');
    if (address.count > 0) {
      card.address = address.values;
    }
    return card;
  };

  function requireObject(value, what) {
    if (!value) {
      throw what + ' required';
    }
    if (typeof value !== 'object') {
      throw what + ' invalid';
    }
  }

  OpenPay.token = {
    create: function (params, success, failure) {
      requireObject(params, 'tarjeta');
      send('tokens', params, success, failure);
    },
    extractFormAndCreate: function (form, success, failure) {
      OpenPay.token.create(OpenPay.extractFormInfo(form), success, failure);
    }
  };

  // Card brands the helpers recognise: the number's leading digits and the
  // lengths a number of the brand has.
  var brands = [
    { name: 'American Express', pattern: /^3[47]/, lengths: [15] },
    { name: 'Diners Club International', pattern: /^3(0[0-5]|[689])/, lengths: [14, 16] },
    { name: 'JCB', pattern: /^35(2[89]|[3-8])/, lengths: [16, 17, 18, 19] },
    { name: 'Visa', pattern: /^4/, lengths: [13, 16, 19] },
    { name: 'Mastercard', pattern: /^(5[1-5]|222[1-9]|22[3-9]\d|2[3-6]\d\d|27[01]\d|2720)/, lengths: [16] },
    { name: 'Discover', pattern: /^(6011|65|64[4-9])/, lengths: [16, 19] }
  ];

  function digits(value) {
    return String(value === undefined || value === null ? '' : value).replace(/[\s-]+/g, '');
  }

  function brandOf(number) {
    number = digits(number);
    for (var i = 0; i < brands.length; i++) {
      if (brands[i].pattern.test(number)) {
        return brands[i];
      }
    }
    return null;
  }

  OpenPay.card = {
    luhnCheck: function (number) {
      number = digits(number);
      if (!/^\d+$/.test(number)) {
        return false;
      }
      var sum = 0;
      for (var i = 0; i < number.length; i++) {
        var d = number.charCodeAt(number.length - 1 - i) - 48;
        if (i % 2 === 1) {
          d *= 2;
          if (d > 9) {
            d -= 9;
          }
        }
        sum += d;
      }
      return sum % 10 === 0;
    },
    cardType: function (number) {
      var b = brandOf(number);
      return b ? b.name : '';
    },
    validateCardNumberLength: function (number) {
      number = digits(number);
      var b = brandOf(number);
      if (b) {
        return b.lengths.indexOf(number.length) >= 0;
      }
      return number.length >= 10 && number.length <= 19;
    },
    validateCardNumber: function (number) {
      number = digits(number);
      return /^\d{10,19}$/.test(number) && OpenPay.card.luhnCheck(number) && OpenPay.card.validateCardNumberLength(number);
    },
    // validateCVC checks a security code: four digits for American
    // Express, three for the other brands, three or four without a number.
    validateCVC: function (cvv, number) {
      cvv = String(cvv === undefined || cvv === null ? '' : cvv).trim();
      if (!/^\d+$/.test(cvv)) {
        return false;
      }
      if (number === undefined || number === null || number === '') {
        return cvv.length === 3 || cvv.length === 4;
      }
      if (!OpenPay.card.validateCardNumber(number)) {
        return false;
      }
      return cvv.length === (OpenPay.card.cardType(number) === 'American Express' ? 4 : 3);
    },
    // validateExpiry checks a month (1 to 12) and a year (two or four
    // digits) that have not passed: a card is good to the end of its month.
    validateExpiry: function (month, year) {
      month = String(month === undefined || month === null ? '' : month).trim();
      year = String(year === undefined || year === null ? '' : year).trim();
      if (!/^\d{1,2}$/.test(month) || !/^(\d{2}|\d{4})$/.test(year)) {
        return false;
      }
      var m = parseInt(month, 10);
      var y = parseInt(year, 10);
      if (year.length === 2) {
        y += 2000;
      }
      if (m < 1 || m > 12) {
        return false;
      }
      return new Date(y, m, 1) > new Date();
    }
  };

  global.OpenPay = OpenPay;
})(window);
