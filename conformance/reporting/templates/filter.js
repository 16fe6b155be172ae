{#- report.html's only script: it un-hides its own controls, so without scripts none are shown. -#}
(function(){var f=document.getElementById('status-filter'),m=document.getElementById('matrix');if(!f||!m)return;f.hidden=false;f.addEventListener('change',function(e){var t=e.target;if(t.name==='status')m.classList.toggle('hide-'+t.value,!t.checked);});})();
