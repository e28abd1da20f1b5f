// What a page with a file field adds: a "sending" line and the small script that checks and shows it.

/** Shown by the script above the fields: why nothing was sent (each problem under its field). */
export const UPLOAD_PROBLEM = '<p id="upload-problem" class="error" role="alert" hidden></p>';

/** Shown by the script under the button while the answer is sending. */
export const SENDING = `<p id="sending" class="sending" role="status" hidden>Sending your answer… a photo can take a minute on a mobile connection: keep this page open.<progress></progress></p>`;

/**
 * The page's only script, allowed by its hash (headers.ts), and the page works without it: on
 * submit it checks, before a byte is sent, what the node would refuse after the upload and a
 * browser does not check itself: how many files, each file's size, that it is not empty, its name or type
 * against Accepted File Types (its content the node reads), and how many boxes are ticked; each
 * problem goes under its field, in the node's words, in place of what an earlier answer was told
 * (a field changed since loses its old error). Then it leaves empty file fields out of the post
 * (n8n 1.x stops reading a post at one) and shows that the answer is sending, the button disabled
 * against a second tap; back on the page (the browser's back button), the form is as it was.
 */
export const UPLOAD_SCRIPT = `
(function () {
	var form = document.querySelector('form');
	var button = form.querySelector('button[type=submit]');
	var sending = document.getElementById('sending');
	var summary = document.getElementById('upload-problem');
	var inputs = form.querySelectorAll('input[type=file]');
	var choices = form.querySelectorAll('fieldset[data-min]');
	function megabytes(bytes) {
		return Number((bytes / 1000000).toFixed(bytes % 1000000 === 0 ? 0 : 1)) + ' MB';
	}
	function errorOf(name) {
		var line = document.getElementById(name + '-error');
		if (!line) {
			line = document.createElement('p');
			line.className = 'error';
			line.id = name + '-error';
			form.querySelector('[name="' + name + '"]').closest('form > div').appendChild(line);
		}
		return line;
	}
	function accepted(input, file) {
		var accept = input.getAttribute('accept');
		var name = file.name.toLowerCase();
		var type = (file.type || '').toLowerCase();
		return !accept || accept.split(',').some(function (entry) {
			if (entry.charAt(0) === '.') return name.slice(-entry.length) === entry;
			if (type === '' || type === 'application/octet-stream') return true;
			return entry.slice(-2) === '/*' ? type.indexOf(entry.slice(0, -1)) === 0 : type === entry;
		});
	}
	function fileProblem(input) {
		var label = input.getAttribute('data-label') + ': ';
		var max = Number(input.getAttribute('data-max-bytes'));
		var most = Number(input.getAttribute('data-max-files'));
		if (input.files.length > most) return label + 'Choose at most ' + most + ' files.';
		for (var j = 0; j < input.files.length; j++) {
			var file = input.files[j];
			if (file.size === 0) {
				return label + file.name + ' is empty (0 bytes): a file kept in the cloud, such as a photo not yet downloaded, may need to download to the phone first. Choose it again.';
			}
			if (file.size > max) {
				return label + file.name + ' is ' + megabytes(file.size) + '; this field takes files up to ' + input.getAttribute('data-limit') + '.';
			}
			if (!accepted(input, file)) {
				return label + file.name + ' is not one of the accepted types (' + input.getAttribute('accept') + ').';
			}
		}
		return '';
	}
	function choiceProblem(set) {
		var ticked = set.querySelectorAll('input:checked').length;
		if (ticked === 0 && !set.hasAttribute('data-required')) return '';
		var wrong = ticked < Number(set.getAttribute('data-min')) || ticked > Number(set.getAttribute('data-max'));
		return wrong ? set.getAttribute('data-label') + ': ' + set.getAttribute('data-rule') : '';
	}
	form.addEventListener('change', function (event) {
		var line = event.target.name && document.getElementById(event.target.name + '-error');
		if (line) line.hidden = true;
	});
	form.addEventListener('submit', function (event) {
		var wrong = 0;
		var earlier = document.getElementById('answer-problem');
		if (earlier) earlier.hidden = true;
		function check(name, problem) {
			if (!problem) return;
			var line = errorOf(name);
			line.textContent = problem;
			line.hidden = false;
			wrong++;
		}
		for (var i = 0; i < inputs.length; i++) check(inputs[i].name, fileProblem(inputs[i]));
		for (var k = 0; k < choices.length; k++) {
			check(choices[k].getAttribute('data-name'), choiceProblem(choices[k]));
		}
		summary.textContent = wrong === 0 ? '' : 'Nothing was sent: ' + (wrong === 1 ? 'one field needs' : wrong + ' fields need') + ' another answer.';
		summary.hidden = wrong === 0;
		if (wrong) return event.preventDefault();
		for (var m = 0; m < inputs.length; m++) inputs[m].disabled = inputs[m].files.length === 0;
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
