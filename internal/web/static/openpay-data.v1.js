/*
 * openpay-data.v1.js: device data for the openpay-go reference server's
 * browser library. Load it after openpay.v1.js, as with the gateway's.
 *
 * OpenPay.deviceData.setup(formId, fieldName) returns the page's device
 * session id (32 letters and digits, the same for the whole page), adds it
 * to the form formId as a hidden input named fieldName (deviceDataId when
 * omitted) and reports the device to the server's anti-fraud endpoints. The
 * merchant sends the id with the charge as device_session_id.
 */
(function (global) {
  'use strict';

  var OpenPay = global.OpenPay;
  if (!OpenPay) {
    throw new Error('openpay-data.v1.js needs openpay.v1.js, loaded before it');
  }

  var sessionId;

  // deviceSessionId draws 192 random bits once per page and writes them in
  // base64 with + and / turned into 0: 32 letters and digits.
  function deviceSessionId() {
    if (sessionId === undefined) {
      var bytes = new Uint8Array(24);
      global.crypto.getRandomValues(bytes);
      sessionId = global.btoa(String.fromCharCode.apply(null, bytes)).replace(/[+/]/g, '0');
    }
    return sessionId;
  }

  // report calls the anti-fraud key endpoint (the answer is a JSON object in
  // parentheses; a non-empty key would name a beacon script to load) and
  // the device-data components, whose HTML goes to the end of the page.
  function report(id) {
    if (!OpenPay._validCredentials(null)) {
      return;
    }
    var host = OpenPay._hostname().replace(/v1\/$/, '');
    var mid = encodeURIComponent(OpenPay.getId());
    OpenPay._xhr('GET', host + 'v1/' + mid + '/antifraudkeys', OpenPay.getApiKey(), undefined, function (status, text) {
      if (status < 200 || status >= 300) {
        return;
      }
      try {
        var key = JSON.parse(text.replace('(', '').replace(')', '')).data;
        if (key) {
          var s = document.createElement('script');
          s.src = host + 'antifraud/sc.js';
          document.body.appendChild(s);
        }
      } catch (e) {
        // A malformed key answer only costs the beacon.
      }
    });
    OpenPay._xhr('GET', host + 'antifraud/' + mid + '/components?s=' + encodeURIComponent(id), '', undefined, function (status, text) {
      if (status === 200 && document.body) {
        document.body.insertAdjacentHTML('beforeend', text);
      }
    });
  }

  OpenPay.deviceData = {
    setup: function (formId, fieldName) {
      var id = deviceSessionId();
      var form = formId ? document.getElementById(formId) : null;
      if (form) {
        var input = document.createElement('input');
        input.type = 'hidden';
        input.name = fieldName || 'deviceDataId';
        input.id = fieldName || 'deviceDataId';
        input.value = id;
        form.appendChild(input);
      }
      report(id);
      return id;
    }
  };
})(window);
