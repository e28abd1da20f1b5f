// What a page with a file field adds: a "sending" line and the small script that shows it.

/** Shown by the script: a file over its field's limit (before anything is sent), then "sending". */
export const SENDING = `<p id="upload-problem" class="error" role="alert" hidden></p>
<p id="sending" class="sending" role="status" hidden>Sending your answer… a photo can take a minute on a mobile connection: keep this page open.<progress></progress></p>`;

/**
 * The page's only script, allowed by its hash (headers.ts), and the page works without it: on
 * submit it refuses a file over its field's stated limit before a byte is sent, leaves empty file
 * fields out of the post (n8n 1.x stops reading a post at one), and shows that the answer is
 * sending, the button disabled against a second tap; back on the page (the browser's back
 * button), the form is as it was.
 */
export const UPLOAD_SCRIPT = `
(function () {
	var form = document.querySelector('form');
	var button = form.querySelector('button[type=submit]');
	var sending = document.getElementById('sending');
	var problem = document.getElementById('upload-problem');
	var inputs = form.querySelectorAll('input[type=file]');
	function tooLarge() {
		var found = [];
		for (var i = 0; i < inputs.length; i++) {
			var max = Number(inputs[i].getAttribute('data-max-bytes'));
			for (var j = 0; j < inputs[i].files.length; j++) {
				var file = inputs[i].files[j];
				if (file.size > max) {
					found.push(inputs[i].getAttribute('data-label') + ': ' + file.name + ' is ' +
						(file.size / 1048576).toFixed(1) + ' MB; this field takes files up to ' +
						inputs[i].getAttribute('data-limit') + '.');
				}
			}
		}
		return found;
	}
	form.addEventListener('submit', function (event) {
		var found = tooLarge();
		problem.textContent = found.join(' ');
		problem.hidden = found.length === 0;
		if (found.length) return event.preventDefault();
		for (var i = 0; i < inputs.length; i++) inputs[i].disabled = inputs[i].files.length === 0;
		button.disabled = true;
		sending.hidden = false;
	});
	window.addEventListener('pageshow', function () {
		for (var i = 0; i < inputs.length; i++) inputs[i].disabled = false;
		button.disabled = false;
		sending.hidden = true;
	});
})();
`;
