#!/usr/bin/env python3
"""E4's realistic fixture set: write it, and measure a svbench binary on it.

    python3 scripts/e4_realistic.py make [--out fixtures/e4-mail]
    python3 scripts/e4_realistic.py measure --svbench PATH [--split calibrate|holdout|all] [--out FILE.md]

`make` writes fixtures/e4-mail/messages/*, labels.csv and nothing else
(CARD.md is written by hand); it is deterministic, so running it again
reproduces the committed files byte for byte. Every message is fiction:
invented organisations, people and brands, official domains under
`.example`, attacker domains invented for this set.

`measure` imports the messages with the given binary, checks each rendering
for defects by class, runs `builtin:indicators` and `svbench scan`, and
prints a Markdown report (deterministic for a given binary). It exits 2
with a message when the binary is missing or any step fails. Python 3
standard library only.
"""

from __future__ import annotations

import argparse
import base64
import csv
import datetime as dt
import email
import email.header
import email.utils
import hashlib
import html as _html
import io
import json
import os
import quopri
import re
import shutil
import subprocess
import sys
import tempfile
import unicodedata
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DIR = REPO / "fixtures" / "e4-mail"
LANGS = ["en", "pt", "es", "fr", "de"]

# ---------------------------------------------------------------------------
# The world of each language: the recipient's organisation, its people, and
# the brands that write to it (official domains) or are impersonated
# (attacker domains, invented for this set).
# ---------------------------------------------------------------------------

CTX = {
    "en": dict(
        org="Harbourline Logistics", dom="harbourline.example",
        first="Dana", last="Whitfield", ceo="Martin Hale", colleague="Tom Becker",
        bank=("Northwind Bank", "northwindbank.example"),
        bank_fake=["northwind-bank-online.top", "nwb-secure-access.xyz", "northwindbank-login.click"],
        parcel=("Contoso Parcel", "contosoparcel.example"), parcel_fake="contoso-parcel-fees.click",
        cloud=("Litware Cloud", "litwarecloud.example"), cloud_fake=["litware-cloud-share.xyz", "iitwarecloud.top"],
        payroll=("Trey Payroll", "treypayroll.example"), payroll_fake="trey-payroll-portal.top",
        vendor=("Fabrikam Supplies", "fabrikam.example", "Gareth Lowe"), vendor_fake="fabrikarn-supplies.com",
        tax=("Wingtip Revenue Agency", "wingtiprevenue.example"), tax_fake="wingtip-refunds.icu",
        telecom=("Lucerne Telecom", "lucernetelecom.example"), telecom_fake="lucerne-telecom-billing.xyz",
        shop=("Brightwell Stationers", "brightwell.example"),
        freemail="freemail.example", mailfake="mail-quota-center.click",
        lst=("ofs-discuss", "lists.openfreight.example", "Kofi Mensah", "kofi@mensah-consult.example"),
        school=("Kestrel Language Club", "kestrel-lang.example"),
        saas=("Routewise", "routewise.example"),
    ),
    "pt": dict(
        org="Ventura Têxteis", dom="venturatexteis.example",
        first="Mariana", last="Costa", ceo="Rui Almeida", colleague="Beatriz Lopes",
        bank=("Banco Valtera", "valtera.example"),
        bank_fake=["valtera-seguranca.top", "bancovaltera-acesso.xyz", "valtera-cliente.click"],
        parcel=("Rápido Postal", "rapidopostal.example"), parcel_fake="rapidopostal-taxas.click",
        cloud=("Tailspin Docs", "tailspindocs.example"), cloud_fake=["tailspindocs-compartilhar.online", "tailspin-arquivos.top"],
        payroll=("FolhaCerta", "folhacerta.example"), payroll_fake="folhacerta-rh.top",
        vendor=("Metalúrgica Sertã", "metalurgicaserta.example", "Carlos Nogueira"), vendor_fake="rnetalurgicaserta.com",
        tax=("Fisco Valmira", "fiscovalmira.example"), tax_fake="restituicao-valmira.xyz",
        telecom=("Orbeline Telecom", "orbeline.example"), telecom_fake="orbeline-conta.xyz",
        shop=("Casa Aurora", "casaaurora.example"),
        freemail="webmail.example", mailfake="caixapostal-cota.click",
        lst=("textil-br", "lists.textilbr.example", "Kofi Mensah", "kofi@mensah-consult.example"),
        school=("Clube de Idiomas Kestrel", "kestrel-lang.example"),
        saas=("Rotafácil", "rotafacil.example"),
    ),
    "es": dict(
        org="Ribera Alimentos", dom="riberaalimentos.example",
        first="Lucía", last="Fernández", ceo="Javier Morales", colleague="Pablo Ortega",
        bank=("Woodgrove Bank", "woodgrovebank.example"),
        bank_fake=["woodgrove-banca.top", "wo0dgrovebank.xyz", "woodgrove-clientes.click"],
        parcel=("Blue Yonder Freight", "blueyonderfreight.example"), parcel_fake="blueyonder-aduanas.click",
        cloud=("Nubeo", "nubeo.example"), cloud_fake=["nubeo-docs.xyz", "nubeo-compartido.top"],
        payroll=("Trey Payroll", "treypayroll.example"), payroll_fake="treypayroll-nomina.top",
        vendor=("Proseware Systems", "proseware.example", "Marta Gil"), vendor_fake="prozeware-systems.com",
        tax=("Agencia Tributaria de Almena", "tributos-almena.example"), tax_fake="almena-devoluciones.icu",
        telecom=("Telefonía Brisa", "brisamovil.example"), telecom_fake="brisamovil-facturas.xyz",
        shop=("Almacenes Olmo", "almacenesolmo.example"),
        freemail="postbox-mail.example", mailfake="buzon-capacidad.click",
        lst=("alimentos-calidad", "lists.calidadalimentaria.example", "Kofi Mensah", "kofi@mensah-consult.example"),
        school=("Club de Idiomas Kestrel", "kestrel-lang.example"),
        saas=("Rutaclara", "rutaclara.example"),
    ),
    "fr": dict(
        org="Atelier Lumen", dom="atelier-lumen.example",
        first="Claire", last="Dubois", ceo="Étienne Marchand", colleague="Julien Petit",
        bank=("Banque Mirabel", "banquemirabel.example"),
        bank_fake=["banquemirabel-securite.top", "mirabel-clients.xyz", "banque-mirabel.click"],
        parcel=("Colis Horizon", "colishorizon.example"), parcel_fake="colishorizon-frais.click",
        cloud=("Litware Cloud", "litwarecloud.example"), cloud_fake=["litware-partage.xyz", "litwarec1oud.top"],
        payroll=("PaieNova", "paienova.example"), payroll_fake="paienova-rh.top",
        vendor=("Fournitures Belcour", "belcour.example", "Sophie Renard"), vendor_fake="be1cour-fournitures.com",
        tax=("Trésor de Vaubrun", "tresor-vaubrun.example"), tax_fake="vaubrun-remboursement.icu",
        telecom=("Adatum Mail", "adatummail.example"), telecom_fake="adatum-webmail.xyz",
        shop=("Maison Cerisaie", "cerisaie.example"),
        freemail="inboxly.test", mailfake="quota-messagerie.click",
        lst=("artisans-lumiere", "lists.artisanslumiere.example", "Kofi Mensah", "kofi@mensah-consult.example"),
        school=("Club de langues Kestrel", "kestrel-lang.example"),
        saas=("Itinéo", "itineo.example"),
    ),
    "de": dict(
        org="Falkner Maschinenbau", dom="falkner-maschinenbau.example",
        first="Jana", last="Vogel", ceo="Stefan Brandt", colleague="Lukas Hoffmann",
        bank=("Lindauer Bank", "lindauerbank.example"),
        bank_fake=["lindauerbank-sicherheit.top", "lindauer-onlinebanking.xyz", "lindauerbank.konto-check.click"],
        parcel=("Paketblitz", "paketblitz.example"), parcel_fake="paketblitz-zoll.click",
        cloud=("Wolkenwerk", "wolkenwerk.example"), cloud_fake=["wolkenwerk-dateien.xyz", "wolkenwerk-freigabe.top"],
        payroll=("LohnPilot", "lohnpilot.example"), payroll_fake="lohnpilot-portal.top",
        vendor=("Kessler Industriebedarf", "kessler-industrie.example", "Andrea Kessler"), vendor_fake="kessler-industrle.com",
        tax=("Finanzamt Ebersgrund", "finanzamt-ebersgrund.example"), tax_fake="ebersgrund-erstattung.icu",
        telecom=("Nordfunk Mobil", "nordfunk.example"), telecom_fake="nordfunk-kundenkonto.xyz",
        shop=("Kaufhaus Lenz", "kaufhaus-lenz.example"),
        freemail="mailbox.test", mailfake="postfach-speicher.click",
        lst=("maschinenbau-forum", "lists.mb-forum.example", "Kofi Mensah", "kofi@mensah-consult.example"),
        school=("Sprachclub Kestrel", "kestrel-lang.example"),
        saas=("Routenwerk", "routenwerk.example"),
    ),
}

# ---------------------------------------------------------------------------
# Texts. Each entry: subject, body lines, call to action (or None), and the
# index of the line a reader cannot miss (its first words are `must_show`).
# Placeholders are filled per message.
# ---------------------------------------------------------------------------

T: dict[str, dict[str, dict]] = {}


def text(kind: str, lang: str, subj: str, lines: list[str], cta: str | None = None, key: int = 1) -> None:
    T.setdefault(kind, {})[lang] = dict(subj=subj, lines=lines, cta=cta, key=key)


# ---- phishing ----

text("cred", "en", "Action required: confirm your online banking details", [
    "Dear customer,",
    "We were unable to verify your recent login to {brand} Online Banking.",
    "To keep access to your account, please confirm your details using the secure link below.",
    "{brand} Security Team"], "Confirm my details")
text("cred", "pt", "Ação necessária: confirme seus dados de acesso", [
    "Prezado cliente,",
    "Não conseguimos verificar seu último acesso ao {brand} Online.",
    "Para manter o acesso à sua conta, confirme seus dados pelo link seguro abaixo.",
    "Equipe de Segurança {brand}"], "Confirmar meus dados")
text("cred", "es", "Acción necesaria: confirme sus datos de banca en línea", [
    "Estimado cliente:",
    "No hemos podido verificar su último acceso a la banca en línea de {brand}.",
    "Para mantener el acceso a su cuenta, confirme sus datos a través del enlace seguro.",
    "Equipo de Seguridad de {brand}"], "Confirmar mis datos")
text("cred", "fr", "Action requise : confirmez vos informations de connexion", [
    "Cher client,",
    "Nous n'avons pas pu vérifier votre dernière connexion à l'espace client {brand}.",
    "Afin de conserver l'accès à votre compte, merci de confirmer vos informations via le lien sécurisé ci-dessous.",
    "Service Sécurité {brand}"], "Confirmer mes informations")
text("cred", "de", "Handlungsbedarf: Bestätigen Sie Ihre Zugangsdaten", [
    "Sehr geehrter Kunde,",
    "wir konnten Ihre letzte Anmeldung beim Online-Banking der {brand} nicht verifizieren.",
    "Um den Zugriff auf Ihr Konto zu behalten, bestätigen Sie bitte Ihre Daten über den folgenden sicheren Link.",
    "Ihr {brand} Sicherheitsteam"], "Daten jetzt bestätigen")

text("suspend", "en", "Your {brand} account has been suspended", [
    "Hello,",
    "We detected unusual activity and have temporarily suspended your {brand} account.",
    "Sign in within 48 hours to restore access, otherwise the account and its data will be permanently deleted.",
    "{brand} Customer Care"], "Restore access")
text("suspend", "pt", "Sua conta {brand} foi suspensa", [
    "Olá,",
    "Detectamos atividade incomum e suspendemos temporariamente sua conta {brand}.",
    "Entre em até 48 horas para restaurar o acesso; caso contrário, a conta e os dados serão excluídos definitivamente.",
    "Atendimento {brand}"], "Restaurar acesso")
text("suspend", "es", "Su cuenta de {brand} ha sido suspendida", [
    "Hola:",
    "Hemos detectado actividad inusual y hemos suspendido temporalmente su cuenta de {brand}.",
    "Inicie sesión en las próximas 48 horas para recuperar el acceso o la cuenta y sus datos se eliminarán de forma definitiva.",
    "Atención al cliente de {brand}"], "Recuperar el acceso")
text("suspend", "fr", "Votre compte {brand} a été suspendu", [
    "Bonjour,",
    "Nous avons détecté une activité inhabituelle et suspendu temporairement votre compte {brand}.",
    "Connectez-vous sous 48 heures pour rétablir l'accès, faute de quoi le compte et ses données seront définitivement supprimés.",
    "Service clients {brand}"], "Rétablir l'accès")
text("suspend", "de", "Ihr {brand}-Konto wurde gesperrt", [
    "Hallo,",
    "wir haben ungewöhnliche Aktivitäten festgestellt und Ihr {brand}-Konto vorübergehend gesperrt.",
    "Melden Sie sich innerhalb von 48 Stunden an, um den Zugang wiederherzustellen, andernfalls werden das Konto und alle Daten endgültig gelöscht.",
    "Ihr {brand} Kundenservice"], "Zugang wiederherstellen")

text("invoice", "en", "Invoice INV-{n} overdue", [
    "Hi {first},",
    "Our records show that invoice INV-{n} for 4,870.00 EUR is now overdue.",
    "You can view the invoice and settle the balance through our payment portal.",
    "Accounts Receivable, {vendor}"], "View invoice")
text("invoice", "pt", "Fatura NF-{n} em atraso", [
    "Olá {first},",
    "Consta em nossos registros que a fatura NF-{n} no valor de R$ 12.480,00 está em atraso.",
    "Você pode visualizar a fatura e quitar o saldo pelo nosso portal de pagamentos.",
    "Contas a Receber, {vendor}"], "Ver fatura")
text("invoice", "es", "Factura FAC-{n} vencida", [
    "Hola, {first}:",
    "Según nuestros registros, la factura FAC-{n} por importe de 4.870,00 EUR está vencida.",
    "Puede consultar la factura y abonar el saldo en nuestro portal de pagos.",
    "Cuentas por cobrar, {vendor}"], "Ver factura")
text("invoice", "fr", "Facture FA-{n} impayée", [
    "Bonjour {first},",
    "Sauf erreur de notre part, la facture FA-{n} d'un montant de 4 870,00 EUR reste impayée.",
    "Vous pouvez consulter la facture et régler le solde sur notre portail de paiement.",
    "Service comptabilité, {vendor}"], "Consulter la facture")
text("invoice", "de", "Rechnung RE-{n} überfällig", [
    "Hallo {first},",
    "laut unseren Unterlagen ist die Rechnung RE-{n} über 4.870,00 EUR inzwischen überfällig.",
    "Sie können die Rechnung in unserem Zahlungsportal einsehen und den offenen Betrag begleichen.",
    "Buchhaltung, {vendor}"], "Rechnung ansehen")

text("bankchange", "en", "Updated remittance details", [
    "Hello {first},",
    "Please note that we have changed banks following our annual audit. All future payments, including the two open invoices, should go to our new account:",
    "Account name: {vendor} Ltd / IBAN: GB00 TEST 0000 1234 5678 90 / BIC: TESTGB2X",
    "Kindly confirm by reply once your records are updated.",
    "Best regards,", "{vperson}", "Finance, {vendor}"])
text("bankchange", "pt", "Atualização de dados bancários", [
    "Olá {first},",
    "Informamos que mudamos de banco após nossa auditoria anual. Todos os pagamentos futuros, incluindo as duas faturas em aberto, devem ser feitos na nova conta:",
    "Favorecido: {vendor} Ltda / Banco 000 / Agência 0001 / Conta 12345-6",
    "Por favor, confirme por resposta assim que atualizar o cadastro.",
    "Atenciosamente,", "{vperson}", "Financeiro, {vendor}"])
text("bankchange", "es", "Actualización de datos bancarios", [
    "Hola, {first}:",
    "Le informamos de que hemos cambiado de banco tras nuestra auditoría anual. Todos los pagos futuros, incluidas las dos facturas pendientes, deben realizarse en nuestra nueva cuenta:",
    "Titular: {vendor} S.L. / IBAN: ES00 0000 1234 5678 9012 3456",
    "Le agradecemos que nos confirme por correo cuando haya actualizado sus datos.",
    "Un saludo,", "{vperson}", "Administración, {vendor}"])
text("bankchange", "fr", "Mise à jour de nos coordonnées bancaires", [
    "Bonjour {first},",
    "Suite à notre audit annuel, nous avons changé d'établissement bancaire. Tous les prochains règlements, y compris les deux factures en attente, sont à effectuer sur notre nouveau compte :",
    "Titulaire : {vendor} SAS / IBAN : FR00 0000 1234 5678 9012 3456 789",
    "Merci de nous confirmer par retour de mail la mise à jour de votre fichier fournisseurs.",
    "Cordialement,", "{vperson}", "Comptabilité, {vendor}"])
text("bankchange", "de", "Geänderte Bankverbindung", [
    "Hallo {first},",
    "nach unserer jährlichen Prüfung haben wir die Bank gewechselt. Alle künftigen Zahlungen, auch die beiden offenen Rechnungen, überweisen Sie bitte auf unser neues Konto:",
    "Kontoinhaber: {vendor} GmbH / IBAN: DE00 0000 1234 5678 9012 34",
    "Bitte bestätigen Sie uns kurz per Antwort, sobald Sie die Stammdaten angepasst haben.",
    "Viele Grüße", "{vperson}", "Buchhaltung, {vendor}"])

text("bec", "en", "Quick question", [
    "{first},",
    "Are you at your desk? I have something I need you to take care of for me this afternoon.",
    "Reply to this email when you see it.", "{ceo}", "Sent from my phone"])
text("bec", "pt", "Uma pergunta", [
    "{first},",
    "Você está na sua mesa? Tenho uma tarefa que preciso que você resolva para mim hoje à tarde.",
    "Responda este e-mail quando puder.", "{ceo}", "Enviado do meu celular"])
text("bec", "es", "Una consulta", [
    "{first}:",
    "¿Estás en tu puesto? Tengo un asunto que necesito que gestiones por mí esta tarde.",
    "Contéstame a este correo cuando lo veas.", "{ceo}", "Enviado desde mi móvil"])
text("bec", "fr", "Petite question", [
    "{first},",
    "Es-tu à ton bureau ? J'ai quelque chose à te confier cet après-midi.",
    "Réponds-moi sur cette adresse quand tu vois ce message.", "{ceo}", "Envoyé de mon téléphone"])
text("bec", "de", "Kurze Frage", [
    "{first},",
    "bist du gerade am Platz? Ich hätte heute Nachmittag etwas, um das du dich für mich kümmern müsstest.",
    "Antworte mir einfach auf diese Mail, wenn du sie siehst.", "{ceo}", "Von meinem Handy gesendet"])

text("payroll", "en", "Action needed: confirm your direct deposit for the next payroll", [
    "Hello {first},",
    "{payroll} is moving to a new payroll platform. Employees who do not confirm their bank details before the 25th may see their salary delayed.",
    "Please sign in with your work account to review your details.",
    "HR Services"], "Review my payroll details")
text("payroll", "pt", "Confirme seus dados para a próxima folha de pagamento", [
    "Olá {first},",
    "A {payroll} está migrando para uma nova plataforma de folha de pagamento. Colaboradores que não confirmarem os dados bancários até o dia 25 poderão ter o salário atrasado.",
    "Acesse com sua conta corporativa para revisar seus dados.",
    "Recursos Humanos"], "Revisar meus dados")
text("payroll", "es", "Confirme su cuenta para la próxima nómina", [
    "Hola, {first}:",
    "{payroll} migra a una nueva plataforma de nóminas. Los empleados que no confirmen sus datos bancarios antes del día 25 podrían recibir el salario con retraso.",
    "Inicie sesión con su cuenta corporativa para revisar sus datos.",
    "Recursos Humanos"], "Revisar mis datos de nómina")
text("payroll", "fr", "Confirmez vos coordonnées pour la prochaine paie", [
    "Bonjour {first},",
    "{payroll} migre vers une nouvelle plateforme de paie. Les salariés qui n'auront pas confirmé leurs coordonnées bancaires avant le 25 risquent un retard de versement.",
    "Merci de vous connecter avec votre compte professionnel pour vérifier vos informations.",
    "Ressources humaines"], "Vérifier mes informations de paie")
text("payroll", "de", "Bitte Bankverbindung für die nächste Gehaltsabrechnung bestätigen", [
    "Hallo {first},",
    "{payroll} stellt auf eine neue Abrechnungsplattform um. Bei Mitarbeitenden, die ihre Bankverbindung nicht bis zum 25. bestätigen, kann sich die Gehaltszahlung verzögern.",
    "Bitte melden Sie sich mit Ihrem Firmenkonto an und prüfen Sie Ihre Angaben.",
    "Personalabteilung"], "Meine Gehaltsdaten prüfen")

text("delivery", "en", "Your parcel {trk} is on hold", [
    "{parcel}:",
    "Your parcel {trk} could not be delivered because of an unpaid customs fee of 1.99 EUR.",
    "Pay the fee to schedule a new delivery date:"], key=1)
text("delivery", "pt", "Sua encomenda {trk} está retida", [
    "{parcel}:",
    "Sua encomenda {trk} não pôde ser entregue devido a uma taxa alfandegária pendente de R$ 9,90.",
    "Pague a taxa para agendar uma nova entrega:"])
text("delivery", "es", "Su paquete {trk} está retenido", [
    "{parcel}:",
    "Su paquete {trk} no ha podido entregarse por una tasa de aduana pendiente de 1,99 EUR.",
    "Abone la tasa para programar una nueva entrega:"])
text("delivery", "fr", "Votre colis {trk} est en attente", [
    "{parcel} :",
    "Votre colis {trk} n'a pas pu être livré en raison de frais de douane impayés de 1,99 EUR.",
    "Réglez les frais pour choisir une nouvelle date de livraison :"])
text("delivery", "de", "Ihr Paket {trk} wird zurückgehalten", [
    "{parcel}:",
    "Ihr Paket {trk} konnte wegen einer offenen Zollgebühr von 1,99 EUR nicht zugestellt werden.",
    "Bezahlen Sie die Gebühr, um einen neuen Zustelltermin zu wählen:"])

text("docshare", "en", "{sender} shared \"Q3 supplier contract.pdf\" with you", [
    "Hi,",
    "{sender} has shared a document with you on {brand}.",
    "Q3 supplier contract.pdf",
    "Please review and sign before Friday."], "Open document")
text("docshare", "pt", "{sender} compartilhou \"Contrato fornecedores T3.pdf\" com você", [
    "Olá,",
    "{sender} compartilhou um documento com você no {brand}.",
    "Contrato fornecedores T3.pdf",
    "Revise e assine até sexta-feira."], "Abrir documento")
text("docshare", "es", "{sender} ha compartido \"Contrato proveedores T3.pdf\" contigo", [
    "Hola:",
    "{sender} ha compartido un documento contigo en {brand}.",
    "Contrato proveedores T3.pdf",
    "Revísalo y fírmalo antes del viernes."], "Abrir documento")
text("docshare", "fr", "{sender} a partagé \"Contrat fournisseurs T3.pdf\" avec vous", [
    "Bonjour,",
    "{sender} a partagé un document avec vous sur {brand}.",
    "Contrat fournisseurs T3.pdf",
    "Merci de le relire et de le signer avant vendredi."], "Ouvrir le document")
text("docshare", "de", "{sender} hat \"Lieferantenvertrag Q3.pdf\" mit Ihnen geteilt", [
    "Hallo,",
    "{sender} hat auf {brand} ein Dokument mit Ihnen geteilt.",
    "Lieferantenvertrag Q3.pdf",
    "Bitte prüfen und unterschreiben Sie es bis Freitag."], "Dokument öffnen")

text("mailbox", "en", "Mailbox storage 99% full", [
    "Dear {email},",
    "Your mailbox has reached 99% of its storage limit.",
    "Incoming messages will be returned to sender until you upgrade your quota.",
    "IT Service Desk"], "Upgrade storage now")
text("mailbox", "pt", "Caixa de correio 99% cheia", [
    "Prezado(a) {email},",
    "Sua caixa de correio atingiu 99% do limite de armazenamento.",
    "Novas mensagens serão devolvidas ao remetente até que você aumente sua cota.",
    "Suporte de TI"], "Aumentar armazenamento agora")
text("mailbox", "es", "Buzón de correo lleno al 99 %", [
    "Estimado/a {email}:",
    "Su buzón ha alcanzado el 99 % de su capacidad de almacenamiento.",
    "Los mensajes entrantes se devolverán al remitente hasta que amplíe su cuota.",
    "Soporte informático"], "Ampliar almacenamiento ahora")
text("mailbox", "fr", "Boîte aux lettres pleine à 99 %", [
    "Cher utilisateur {email},",
    "Votre boîte aux lettres a atteint 99 % de son espace de stockage.",
    "Les messages entrants seront renvoyés à l'expéditeur tant que vous n'aurez pas augmenté votre quota.",
    "Support informatique"], "Augmenter mon quota")
text("mailbox", "de", "Postfach zu 99 % voll", [
    "Hallo {email},",
    "Ihr Postfach hat 99 % des verfügbaren Speicherplatzes erreicht.",
    "Eingehende Nachrichten werden an den Absender zurückgeschickt, bis Sie Ihr Kontingent erweitern.",
    "IT-Servicedesk"], "Speicher jetzt erweitern")

text("refund", "en", "You are eligible for a tax refund of 318.40 EUR", [
    "Dear taxpayer,",
    "After the annual calculation of your fiscal activity, we have determined that you are eligible to receive a refund of 318.40 EUR.",
    "Submit the refund form to receive the amount on your card within 3 business days.",
    "{brand}"], "Claim refund")
text("refund", "pt", "Você tem direito a uma restituição de R$ 1.318,40", [
    "Prezado contribuinte,",
    "Após o cálculo anual de sua atividade fiscal, verificamos que você tem direito a uma restituição de R$ 1.318,40.",
    "Preencha o formulário para receber o valor em seu cartão em até 3 dias úteis.",
    "{brand}"], "Solicitar restituição")
text("refund", "es", "Tiene derecho a un reembolso de 318,40 EUR", [
    "Estimado contribuyente:",
    "Tras el cálculo anual de su actividad fiscal, hemos determinado que tiene derecho a un reembolso de 318,40 EUR.",
    "Envíe el formulario para recibir el importe en su tarjeta en un plazo de 3 días hábiles.",
    "{brand}"], "Solicitar reembolso")
text("refund", "fr", "Vous êtes éligible à un remboursement de 318,40 EUR", [
    "Cher contribuable,",
    "Après le calcul annuel de votre activité fiscale, nous avons déterminé que vous pouvez recevoir un remboursement de 318,40 EUR.",
    "Remplissez le formulaire pour recevoir le montant sur votre carte sous 3 jours ouvrés.",
    "{brand}"], "Demander le remboursement")
text("refund", "de", "Sie haben Anspruch auf eine Steuererstattung von 318,40 EUR", [
    "Sehr geehrte Steuerzahlerin, sehr geehrter Steuerzahler,",
    "nach der jährlichen Berechnung Ihrer steuerlichen Aktivität haben wir festgestellt, dass Ihnen eine Erstattung von 318,40 EUR zusteht.",
    "Füllen Sie das Formular aus, um den Betrag innerhalb von 3 Werktagen auf Ihre Karte zu erhalten.",
    "{brand}"], "Erstattung anfordern")

text("gift", "en", "Client thank-you", [
    "Hi {first},",
    "I'd like to send a small thank-you to a few of our key clients. Could you pick up six 100 EUR gift cards from {shop} on your way in? I'll reimburse you through expenses.",
    "Once you have them, scratch the backs and send me photos of the codes by email.",
    "{ceo}"])
text("gift", "pt", "Agradecimento a clientes", [
    "Oi {first},",
    "Quero enviar um pequeno agradecimento a alguns clientes importantes. Você pode comprar seis cartões-presente de R$ 200 na {shop}? Reembolso depois como despesa.",
    "Quando estiver com eles, raspe o verso e me mande fotos dos códigos por e-mail.",
    "{ceo}"])
text("gift", "es", "Detalle para clientes", [
    "Hola, {first}:",
    "Quiero tener un detalle con algunos de nuestros clientes principales. ¿Puedes comprar seis tarjetas regalo de 100 EUR en {shop}? Te lo reembolso como gasto.",
    "Cuando las tengas, rasca el reverso y envíame fotos de los códigos por correo.",
    "{ceo}"])
text("gift", "fr", "Geste pour nos clients", [
    "Bonjour {first},",
    "Je souhaite faire un petit geste pour quelques clients importants. Peux-tu acheter six cartes cadeaux de 100 EUR chez {shop} ? Je te rembourserai en note de frais.",
    "Une fois achetées, gratte le dos et envoie-moi les photos des codes par e-mail.",
    "{ceo}"])
text("gift", "de", "Kleines Dankeschön für Kunden", [
    "Hallo {first},",
    "ich möchte einigen wichtigen Kunden ein kleines Dankeschön schicken. Kannst du sechs Geschenkkarten zu je 100 EUR bei {shop} besorgen? Ich erstatte dir das über die Spesen.",
    "Wenn du sie hast, rubbel die Rückseite frei und schick mir Fotos der Codes per Mail.",
    "{ceo}"])

text("hijack", "en", "Re: PO 4471 - delivery schedule", [
    "Hi {first},",
    "As discussed, please find the updated invoice with the revised quantities here:",
    "{url}",
    "Let me know once it's processed.",
    "{vperson}"])
text("hijack", "pt", "Re: Pedido 4471 - cronograma de entrega", [
    "Oi {first},",
    "Conforme combinado, segue a fatura atualizada com as quantidades revisadas:",
    "{url}",
    "Me avise quando for processada.",
    "{vperson}"])
text("hijack", "es", "Re: Pedido 4471 - calendario de entregas", [
    "Hola, {first}:",
    "Como hablamos, aquí tienes la factura actualizada con las cantidades revisadas:",
    "{url}",
    "Avísame cuando esté tramitada.",
    "{vperson}"])
text("hijack", "fr", "RE: Commande 4471 - planning de livraison", [
    "Bonjour {first},",
    "Comme convenu, voici la facture mise à jour avec les quantités révisées :",
    "{url}",
    "Tiens-moi au courant quand elle sera traitée.",
    "{vperson}"])
text("hijack", "de", "AW: Bestellung 4471 - Liefertermine", [
    "Hallo {first},",
    "wie besprochen, hier die aktualisierte Rechnung mit den geänderten Mengen:",
    "{url}",
    "Gib mir bitte Bescheid, wenn sie bearbeitet ist.",
    "{vperson}"])

text("padlure", "en", "Re: Re: Re: Project Lighthouse kickoff notes", [
    "Hi all,",
    "The shared notes have moved to our new workspace. Sign in with your work account to keep editing:",
    "{url}"])
text("padlure", "pt", "Re: Re: Re: Notas do início do Projeto Farol", [
    "Olá a todos,",
    "As notas compartilhadas foram movidas para o novo espaço de trabalho. Entre com sua conta corporativa para continuar editando:",
    "{url}"])
text("padlure", "es", "Re: Re: Re: Notas del arranque del Proyecto Faro", [
    "Hola a todos:",
    "Las notas compartidas se han movido al nuevo espacio de trabajo. Inicia sesión con tu cuenta corporativa para seguir editando:",
    "{url}"])
text("padlure", "fr", "RE: RE: RE: Notes de lancement du projet Phare", [
    "Bonjour à tous,",
    "Les notes partagées ont été déplacées vers notre nouvel espace de travail. Connectez-vous avec votre compte professionnel pour continuer à les modifier :",
    "{url}"])
text("padlure", "de", "AW: AW: AW: Notizen zum Start von Projekt Leuchtturm", [
    "Hallo zusammen,",
    "die gemeinsamen Notizen sind in unseren neuen Arbeitsbereich umgezogen. Meldet euch mit eurem Firmenkonto an, um weiter zu bearbeiten:",
    "{url}"])

# ---- legitimate ----

text("reset", "en", "Reset your {brand} password", [
    "Hi {first},",
    "We received a request to reset the password for your {brand} account ({email}).",
    "If you made this request, use the button below. The link expires in 30 minutes.",
    "If you didn't ask for this, you can ignore this email; your password won't change."], "Reset password")
text("reset", "pt", "Redefinição de senha {brand}", [
    "Olá {first},",
    "Recebemos uma solicitação para redefinir a senha da sua conta {brand} ({email}).",
    "Se foi você, use o botão abaixo. O link expira em 30 minutos.",
    "Se você não fez essa solicitação, ignore este e-mail; sua senha não será alterada."], "Redefinir senha")
text("reset", "es", "Restablece tu contraseña de {brand}", [
    "Hola, {first}:",
    "Hemos recibido una solicitud para restablecer la contraseña de tu cuenta de {brand} ({email}).",
    "Si fuiste tú, usa el botón de abajo. El enlace caduca en 30 minutos.",
    "Si no lo solicitaste, ignora este correo; tu contraseña no cambiará."], "Restablecer contraseña")
text("reset", "fr", "Réinitialisez votre mot de passe {brand}", [
    "Bonjour {first},",
    "Nous avons reçu une demande de réinitialisation du mot de passe de votre compte {brand} ({email}).",
    "Si vous êtes à l'origine de cette demande, utilisez le bouton ci-dessous. Le lien expire dans 30 minutes.",
    "Si vous n'avez rien demandé, ignorez cet e-mail ; votre mot de passe restera inchangé."], "Réinitialiser le mot de passe")
text("reset", "de", "Setzen Sie Ihr {brand}-Passwort zurück", [
    "Hallo {first},",
    "wir haben eine Anfrage erhalten, das Passwort für Ihr {brand}-Konto ({email}) zurückzusetzen.",
    "Wenn Sie das waren, nutzen Sie die Schaltfläche unten. Der Link ist 30 Minuten gültig.",
    "Wenn Sie das nicht angefordert haben, ignorieren Sie diese E-Mail; Ihr Passwort bleibt unverändert."], "Passwort zurücksetzen")

text("signin", "en", "Security alert: new sign-in to your {brand} account", [
    "Hi {first},",
    "Your {brand} account was just signed in to from a new device.",
    "Device: web browser on a laptop / Location: Lisbon, Portugal / Time: 09:14 UTC",
    "If this was you, you don't need to do anything. If not, we'll help you secure your account."], "Check activity")
text("signin", "pt", "Alerta de segurança: novo acesso à sua conta {brand}", [
    "Olá {first},",
    "Sua conta {brand} acabou de ser acessada a partir de um novo dispositivo.",
    "Dispositivo: navegador em um notebook / Local: Lisboa, Portugal / Horário: 09:14 UTC",
    "Se foi você, não é preciso fazer nada. Caso contrário, vamos ajudar você a proteger sua conta."], "Verificar atividade")
text("signin", "es", "Alerta de seguridad: nuevo inicio de sesión en tu cuenta de {brand}", [
    "Hola, {first}:",
    "Se acaba de iniciar sesión en tu cuenta de {brand} desde un dispositivo nuevo.",
    "Dispositivo: navegador en un portátil / Ubicación: Lisboa, Portugal / Hora: 09:14 UTC",
    "Si fuiste tú, no tienes que hacer nada. Si no, te ayudaremos a proteger tu cuenta."], "Revisar actividad")
text("signin", "fr", "Alerte de sécurité : nouvelle connexion à votre compte {brand}", [
    "Bonjour {first},",
    "Une connexion à votre compte {brand} vient d'avoir lieu depuis un nouvel appareil.",
    "Appareil : navigateur sur un ordinateur portable / Lieu : Lisbonne, Portugal / Heure : 09:14 UTC",
    "Si c'était vous, vous n'avez rien à faire. Sinon, nous vous aiderons à sécuriser votre compte."], "Vérifier l'activité")
text("signin", "de", "Sicherheitswarnung: Neue Anmeldung bei Ihrem {brand}-Konto", [
    "Hallo {first},",
    "bei Ihrem {brand}-Konto hat sich soeben ein neues Gerät angemeldet.",
    "Gerät: Browser auf einem Laptop / Ort: Lissabon, Portugal / Zeit: 09:14 UTC",
    "Wenn Sie das waren, müssen Sie nichts tun. Andernfalls helfen wir Ihnen, Ihr Konto zu schützen."], "Aktivität prüfen")

text("ship", "en", "Your order #{n} has shipped", [
    "Good news, {first}!",
    "Your order #{n} is on its way.",
    "Carrier: {parcel} / Tracking number: {trk} / Estimated delivery: Thursday",
    "Thank you for shopping with {shop}."], "Track your parcel")
text("ship", "pt", "Seu pedido nº {n} foi enviado", [
    "Boa notícia, {first}!",
    "Seu pedido nº {n} está a caminho.",
    "Transportadora: {parcel} / Código de rastreio: {trk} / Previsão de entrega: quinta-feira",
    "Obrigado por comprar na {shop}."], "Rastrear encomenda")
text("ship", "es", "Tu pedido n.º {n} ha sido enviado", [
    "¡Buenas noticias, {first}!",
    "Tu pedido n.º {n} ya está en camino.",
    "Transportista: {parcel} / Número de seguimiento: {trk} / Entrega estimada: jueves",
    "Gracias por comprar en {shop}."], "Seguir el envío")
text("ship", "fr", "Votre commande n° {n} a été expédiée", [
    "Bonne nouvelle, {first} !",
    "Votre commande n° {n} est en route.",
    "Transporteur : {parcel} / Numéro de suivi : {trk} / Livraison estimée : jeudi",
    "Merci pour votre commande chez {shop}."], "Suivre mon colis")
text("ship", "de", "Ihre Bestellung Nr. {n} wurde versandt", [
    "Gute Nachrichten, {first}!",
    "Ihre Bestellung Nr. {n} ist unterwegs.",
    "Versanddienst: {parcel} / Sendungsnummer: {trk} / Voraussichtliche Zustellung: Donnerstag",
    "Vielen Dank für Ihren Einkauf bei {shop}."], "Sendung verfolgen")

text("listpost", "en", "[{list}] Meeting notes, 4 March", [
    "Hi all,",
    "Notes from today's call are below. Main decision: we freeze the pallet label schema at draft 0.9 and open a two-week review.",
    "Action items: Ana to update the examples, Kofi to collect comments.",
    "Kofi"])
text("listpost", "pt", "[{list}] Ata da reunião de 4 de março", [
    "Olá a todos,",
    "Segue a ata da chamada de hoje. Decisão principal: congelamos o esquema de etiquetas no rascunho 0.9 e abrimos duas semanas de revisão.",
    "Pendências: Ana atualiza os exemplos, Kofi reúne os comentários.",
    "Kofi"])
text("listpost", "es", "[{list}] Acta de la reunión del 4 de marzo", [
    "Hola a todos:",
    "Abajo tenéis el acta de la llamada de hoy. Decisión principal: congelamos el esquema de etiquetas en el borrador 0.9 y abrimos dos semanas de revisión.",
    "Tareas: Ana actualiza los ejemplos, Kofi recopila los comentarios.",
    "Kofi"])
text("listpost", "fr", "[{list}] Compte rendu du 4 mars", [
    "Bonjour à tous,",
    "Voici le compte rendu de l'appel d'aujourd'hui. Décision principale : nous figeons le schéma d'étiquettes au brouillon 0.9 et ouvrons deux semaines de relecture.",
    "Actions : Ana met à jour les exemples, Kofi rassemble les commentaires.",
    "Kofi"])
text("listpost", "de", "[{list}] Protokoll vom 4. März", [
    "Hallo zusammen,",
    "unten das Protokoll der heutigen Telefonkonferenz. Wichtigste Entscheidung: Wir frieren das Etikettenschema auf Entwurf 0.9 ein und starten eine zweiwöchige Prüfung.",
    "Aufgaben: Ana aktualisiert die Beispiele, Kofi sammelt die Kommentare.",
    "Kofi"])

text("invite", "en", "Invitation: Quarterly planning @ Tue 11 Mar 2025 14:00 - 15:00 (CET)", [
    "{sender} has invited you to a meeting.",
    "Quarterly planning with the operations leads",
    "When: Tuesday 11 March 2025, 14:00 - 15:00 (CET)",
    "Where: Room 3.2, second floor"], "Join video call")
text("invite", "pt", "Convite: Planejamento trimestral @ ter 11 mar 2025 14:00 - 15:00", [
    "{sender} convidou você para uma reunião.",
    "Planejamento trimestral com os líderes de operações",
    "Quando: terça-feira, 11 de março de 2025, 14:00 - 15:00",
    "Onde: Sala 3.2, segundo andar"], "Entrar na videochamada")
text("invite", "es", "Invitación: Planificación trimestral @ mar 11 mar 2025 14:00 - 15:00", [
    "{sender} te ha invitado a una reunión.",
    "Planificación trimestral con los responsables de operaciones",
    "Cuándo: martes, 11 de marzo de 2025, 14:00 - 15:00",
    "Dónde: Sala 3.2, segunda planta"], "Unirse a la videollamada")
text("invite", "fr", "Invitation : Planification trimestrielle @ mar. 11 mars 2025 14:00 - 15:00", [
    "{sender} vous a invité à une réunion.",
    "Planification trimestrielle avec les responsables des opérations",
    "Quand : mardi 11 mars 2025, 14:00 - 15:00",
    "Où : Salle 3.2, deuxième étage"], "Rejoindre la visio")
text("invite", "de", "Einladung: Quartalsplanung @ Di. 11. März 2025 14:00 - 15:00", [
    "{sender} hat Sie zu einer Besprechung eingeladen.",
    "Quartalsplanung mit den Leitungen der Betriebsbereiche",
    "Wann: Dienstag, 11. März 2025, 14:00 - 15:00",
    "Wo: Raum 3.2, zweiter Stock"], "Videokonferenz beitreten")

text("news", "en", "Spring catalogue: 20% off workwear", [
    "Hello {first},",
    "Our spring catalogue is here, with new safety boots and high-visibility jackets.",
    "Members get 20% off workwear until 31 March.",
    "Free shipping on orders over 50 EUR this week"], "Browse the catalogue")
text("news", "pt", "Catálogo de primavera: 20% de desconto em uniformes", [
    "Olá {first},",
    "Nosso catálogo de primavera chegou, com novas botas de segurança e jaquetas refletivas.",
    "Membros têm 20% de desconto em uniformes até 31 de março.",
    "Frete grátis acima de R$ 150 nesta semana"], "Ver catálogo")
text("news", "es", "Catálogo de primavera: 20 % de descuento en ropa laboral", [
    "Hola, {first}:",
    "Ya está aquí nuestro catálogo de primavera, con nuevas botas de seguridad y chaquetas de alta visibilidad.",
    "Los socios tienen un 20 % de descuento en ropa laboral hasta el 31 de marzo.",
    "Envío gratis en pedidos de más de 50 EUR esta semana"], "Ver el catálogo")
text("news", "fr", "Catalogue de printemps : -20 % sur les vêtements de travail", [
    "Bonjour {first},",
    "Notre catalogue de printemps est arrivé, avec de nouvelles chaussures de sécurité et des vestes haute visibilité.",
    "Les membres bénéficient de 20 % de remise sur les vêtements de travail jusqu'au 31 mars.",
    "Livraison offerte dès 50 EUR cette semaine"], "Voir le catalogue")
text("news", "de", "Frühjahrskatalog: 20 % Rabatt auf Arbeitskleidung", [
    "Hallo {first},",
    "unser Frühjahrskatalog ist da, mit neuen Sicherheitsschuhen und Warnschutzjacken.",
    "Mitglieder erhalten bis 31. März 20 % Rabatt auf Arbeitskleidung.",
    "Diese Woche versandkostenfrei ab 50 EUR"], "Katalog ansehen")

text("gateway", "en", "New expense tool from Monday", [
    "Hi team,",
    "From Monday, expense claims move to the new tool on the intranet:",
    "The old spreadsheet template will be archived. A short guide is here:",
    "Thanks,", "{colleague}"])
text("gateway", "pt", "Nova ferramenta de despesas a partir de segunda", [
    "Olá, equipe,",
    "A partir de segunda-feira, os reembolsos de despesas passam para a nova ferramenta na intranet:",
    "A planilha antiga será arquivada. Há um guia rápido aqui:",
    "Obrigada,", "{colleague}"])
text("gateway", "es", "Nueva herramienta de gastos desde el lunes", [
    "Hola a todos:",
    "Desde el lunes, las notas de gastos pasan a la nueva herramienta de la intranet:",
    "La plantilla antigua se archivará. Tenéis una guía breve aquí:",
    "Gracias,", "{colleague}"])
text("gateway", "fr", "Nouvel outil de notes de frais dès lundi", [
    "Bonjour à tous,",
    "À partir de lundi, les notes de frais passent sur le nouvel outil de l'intranet :",
    "L'ancien modèle Excel sera archivé. Un petit guide est disponible ici :",
    "Merci,", "{colleague}"])
text("gateway", "de", "Neues Spesentool ab Montag", [
    "Hallo zusammen,",
    "ab Montag laufen Spesenabrechnungen über das neue Tool im Intranet:",
    "Die alte Excel-Vorlage wird archiviert. Eine kurze Anleitung gibt es hier:",
    "Danke,", "{colleague}"])

text("release", "en", "{brand} v2.10.3.1 is available", [
    "Hello {first},",
    "Version v2.10.3.1 of {brand} is now available for all customers.",
    "Fixes: faster sync with vehicle units on firmware 4.2.0.17; the route planner no longer drops stops after build 2.10.2.9.",
    "Cloud workspaces update automatically tonight. On-premise installs can download build 2.10.3.1 from the customer portal."], "Read the release notes")
text("release", "pt", "{brand} v2.10.3.1 disponível", [
    "Olá {first},",
    "A versão v2.10.3.1 do {brand} já está disponível para todos os clientes.",
    "Correções: sincronização mais rápida com unidades no firmware 4.2.0.17; o planejador de rotas não perde mais paradas após o build 2.10.2.9.",
    "Os ambientes em nuvem são atualizados automaticamente esta noite. Instalações locais podem baixar o build 2.10.3.1 no portal do cliente."], "Ler as notas da versão")
text("release", "es", "{brand} v2.10.3.1 ya disponible", [
    "Hola, {first}:",
    "La versión v2.10.3.1 de {brand} ya está disponible para todos los clientes.",
    "Correcciones: sincronización más rápida con las unidades con firmware 4.2.0.17; el planificador de rutas ya no pierde paradas tras la compilación 2.10.2.9.",
    "Los espacios en la nube se actualizan solos esta noche. Las instalaciones locales pueden descargar la compilación 2.10.3.1 en el portal de clientes."], "Leer las notas de la versión")
text("release", "fr", "{brand} v2.10.3.1 est disponible", [
    "Bonjour {first},",
    "La version v2.10.3.1 d'{brand} est disponible pour tous les clients.",
    "Corrections : synchronisation plus rapide avec les boîtiers en firmware 4.2.0.17 ; le planificateur ne perd plus d'arrêts depuis le build 2.10.2.9.",
    "Les espaces cloud sont mis à jour automatiquement cette nuit. Les installations sur site peuvent télécharger le build 2.10.3.1 depuis le portail client."], "Lire les notes de version")
text("release", "de", "{brand} v2.10.3.1 ist verfügbar", [
    "Hallo {first},",
    "Version v2.10.3.1 von {brand} steht ab sofort allen Kunden zur Verfügung.",
    "Behoben: schnellere Synchronisation mit Fahrzeugeinheiten auf Firmware 4.2.0.17; der Routenplaner verliert seit Build 2.10.2.9 keine Stopps mehr.",
    "Cloud-Arbeitsbereiche werden heute Nacht automatisch aktualisiert. Lokale Installationen laden Build 2.10.3.1 im Kundenportal herunter."], "Versionshinweise lesen")

text("zip", "en", "Invoices March 2025 - {vendor}", [
    "Dear {first},",
    "Please find attached our invoices for March 2025 (invoice.zip, three PDF files), as agreed with your purchasing team.",
    "Payment terms remain 30 days net to the account on file; our bank details have not changed.",
    "Kind regards,", "{vperson}", "Accounts, {vendor}"])
text("zip", "pt", "Faturas de março de 2025 - {vendor}", [
    "Prezada {first},",
    "Segue em anexo o arquivo invoice.zip com as faturas de março de 2025 (três PDFs), conforme combinado com o setor de compras.",
    "O prazo de pagamento continua de 30 dias para a conta já cadastrada; nossos dados bancários não mudaram.",
    "Atenciosamente,", "{vperson}", "Financeiro, {vendor}"])
text("zip", "es", "Facturas de marzo de 2025 - {vendor}", [
    "Estimada {first}:",
    "Adjuntamos el archivo invoice.zip con las facturas de marzo de 2025 (tres PDF), según lo acordado con su departamento de compras.",
    "El plazo de pago sigue siendo de 30 días a la cuenta que ya tienen registrada; nuestros datos bancarios no han cambiado.",
    "Un cordial saludo,", "{vperson}", "Administración, {vendor}"])
text("zip", "fr", "Factures mars 2025 - {vendor}", [
    "Bonjour {first},",
    "Veuillez trouver ci-joint nos factures de mars 2025 (invoice.zip, trois fichiers PDF), comme convenu avec votre service achats.",
    "Le délai de paiement reste de 30 jours sur le compte habituel ; nos coordonnées bancaires sont inchangées.",
    "Bien cordialement,", "{vperson}", "Comptabilité, {vendor}"])
text("zip", "de", "Rechnungen März 2025 - {vendor}", [
    "Sehr geehrte Frau {last},",
    "anbei erhalten Sie unsere Rechnungen für März 2025 (invoice.zip, drei PDF-Dateien), wie mit Ihrem Einkauf vereinbart.",
    "Das Zahlungsziel bleibt 30 Tage netto auf das bekannte Konto; unsere Bankverbindung ist unverändert.",
    "Mit freundlichen Grüßen", "{vperson}", "Buchhaltung, {vendor}"])

text("cjk", "en", "{brand}: this week's phrases", [
    "Hello {first},",
    "Here are this week's phrases from the Thursday conversation tables.",
    "日本語：新しい教材を公開しました。詳しくはkestrel-lang.example/jaをご覧ください。",
    "中文：本周新课程已上线。详情请见：www.kestrel-lang.example/zh",
    "한국어: 이번 주 모임은 목요일입니다.",
    "See you on Thursday at 18:30!"], "Open the member page")
text("cjk", "pt", "{brand}: frases da semana", [
    "Olá {first},",
    "Aqui estão as frases da semana das mesas de conversa de quinta-feira.",
    "日本語：新しい教材を公開しました。詳しくはkestrel-lang.example/jaをご覧ください。",
    "中文：本周新课程已上线。详情请见：www.kestrel-lang.example/zh",
    "한국어: 이번 주 모임은 목요일입니다.",
    "Até quinta às 18h30!"], "Abrir a página de membros")
text("cjk", "es", "{brand}: frases de la semana", [
    "Hola, {first}:",
    "Aquí tienes las frases de la semana de las mesas de conversación del jueves.",
    "日本語：新しい教材を公開しました。詳しくはkestrel-lang.example/jaをご覧ください。",
    "中文：本周新课程已上线。详情请见：www.kestrel-lang.example/zh",
    "한국어: 이번 주 모임은 목요일입니다.",
    "¡Nos vemos el jueves a las 18:30!"], "Abrir la página de socios")
text("cjk", "fr", "{brand} : les expressions de la semaine", [
    "Bonjour {first},",
    "Voici les expressions de la semaine issues des tables de conversation du jeudi.",
    "日本語：新しい教材を公開しました。詳しくはkestrel-lang.example/jaをご覧ください。",
    "中文：本周新课程已上线。详情请见：www.kestrel-lang.example/zh",
    "한국어: 이번 주 모임은 목요일입니다.",
    "À jeudi, 18 h 30 !"], "Ouvrir l'espace membres")
text("cjk", "de", "{brand}: Ausdrücke der Woche", [
    "Hallo {first},",
    "hier sind die Ausdrücke der Woche aus den Gesprächsrunden am Donnerstag.",
    "日本語：新しい教材を公開しました。詳しくはkestrel-lang.example/jaをご覧ください。",
    "中文：本周新课程已上线。详情请见：www.kestrel-lang.example/zh",
    "한국어: 이번 주 모임은 목요일입니다.",
    "Bis Donnerstag um 18:30 Uhr!"], "Mitgliederseite öffnen")

text("webinar", "en", "Webinar: planning routes with live traffic data", [
    "Hello {first},",
    "Join our product team on 18 March at 16:00 CET for a 45-minute walkthrough of live traffic routing.",
    "Registration is free for existing customers, and the recording is sent to everyone who signs up."], "Save my seat")
text("webinar", "pt", "Webinar: planejamento de rotas com trânsito em tempo real", [
    "Olá {first},",
    "Participe com nossa equipe de produto no dia 18 de março, às 12h (horário de Brasília), de uma demonstração de 45 minutos do roteamento com trânsito em tempo real.",
    "A inscrição é gratuita para clientes, e a gravação é enviada a todos os inscritos."], "Garantir minha vaga")
text("webinar", "es", "Webinario: planificación de rutas con tráfico en tiempo real", [
    "Hola, {first}:",
    "Únete a nuestro equipo de producto el 18 de marzo a las 16:00 CET para una demostración de 45 minutos del enrutamiento con tráfico en tiempo real.",
    "La inscripción es gratuita para clientes y enviaremos la grabación a todos los inscritos."], "Reservar mi plaza")
text("webinar", "fr", "Webinaire : planifier ses tournées avec le trafic en temps réel", [
    "Bonjour {first},",
    "Rejoignez notre équipe produit le 18 mars à 16 h pour une démonstration de 45 minutes du calcul d'itinéraires avec le trafic en temps réel.",
    "L'inscription est gratuite pour les clients et l'enregistrement sera envoyé à tous les inscrits."], "Réserver ma place")
text("webinar", "de", "Webinar: Routenplanung mit Echtzeit-Verkehrsdaten", [
    "Hallo {first},",
    "begleiten Sie unser Produktteam am 18. März um 16:00 Uhr bei einer 45-minütigen Vorführung der Routenplanung mit Echtzeit-Verkehrsdaten.",
    "Die Teilnahme ist für Kunden kostenlos, die Aufzeichnung erhalten alle Angemeldeten."], "Platz sichern")

text("receipt", "en", "Payment received - invoice 2025-0{n}", [
    "Hello {first},",
    "We received your payment of 129.00 EUR for invoice 2025-0{n}. Thank you.",
    "Payment method: card ending 4417 / Date: 6 March 2025",
    "No further action is needed. Your receipt is available in your account."], "View receipt")
text("receipt", "pt", "Pagamento recebido - fatura 2025-0{n}", [
    "Olá {first},",
    "Recebemos seu pagamento de R$ 329,00 referente à fatura 2025-0{n}. Obrigado.",
    "Forma de pagamento: cartão final 4417 / Data: 6 de março de 2025",
    "Nenhuma ação é necessária. O recibo está disponível na sua conta."], "Ver recibo")
text("receipt", "es", "Pago recibido - factura 2025-0{n}", [
    "Hola, {first}:",
    "Hemos recibido tu pago de 129,00 EUR de la factura 2025-0{n}. Gracias.",
    "Forma de pago: tarjeta terminada en 4417 / Fecha: 6 de marzo de 2025",
    "No tienes que hacer nada más. El recibo está disponible en tu cuenta."], "Ver recibo")
text("receipt", "fr", "Paiement reçu - facture 2025-0{n}", [
    "Bonjour {first},",
    "Nous avons bien reçu votre paiement de 129,00 EUR pour la facture 2025-0{n}. Merci.",
    "Moyen de paiement : carte se terminant par 4417 / Date : 6 mars 2025",
    "Aucune action n'est nécessaire. Votre reçu est disponible dans votre espace client."], "Voir le reçu")
text("receipt", "de", "Zahlung erhalten - Rechnung 2025-0{n}", [
    "Hallo {first},",
    "wir haben Ihre Zahlung über 129,00 EUR für die Rechnung 2025-0{n} erhalten. Vielen Dank.",
    "Zahlungsart: Karte mit Endziffern 4417 / Datum: 6. März 2025",
    "Sie müssen nichts weiter tun. Ihre Quittung finden Sie in Ihrem Kundenkonto."], "Quittung ansehen")

text("booking", "en", "Booking confirmation #{n} - Hotel Mirador", [
    "Dear {first} {last},",
    "Thank you for choosing Hotel Mirador. Your booking #{n} is confirmed.",
    "Arrival: Monday 17 March 2025 / Departure: Wednesday 19 March 2025 / Room: “Superior double”, breakfast included",
    "Check-in is from 15:00. We look forward to welcoming you."])
text("booking", "pt", "Confirmação de reserva nº {n} - Hotel Mirador", [
    "Prezada {first} {last},",
    "Obrigado por escolher o Hotel Mirador. Sua reserva nº {n} está confirmada.",
    "Chegada: segunda-feira, 17/03/2025 / Saída: quarta-feira, 19/03/2025 / Quarto: “Duplo superior”, café da manhã incluído",
    "O check-in é a partir das 15h. Será um prazer recebê-la."])
text("booking", "es", "Confirmación de reserva n.º {n} - Hotel Mirador", [
    "Estimada {first} {last}:",
    "Gracias por elegir el Hotel Mirador. Su reserva n.º {n} está confirmada.",
    "Llegada: lunes 17/03/2025 / Salida: miércoles 19/03/2025 / Habitación: “Doble superior”, desayuno incluido",
    "El check-in es a partir de las 15:00. Será un placer recibirla."])
text("booking", "fr", "Confirmation de réservation n° {n} - Hôtel Mirador", [
    "Chère {first} {last},",
    "Merci d'avoir choisi l'Hôtel Mirador. Votre réservation n° {n} est confirmée.",
    "Arrivée : lundi 17/03/2025 / Départ : mercredi 19/03/2025 / Chambre : « Double supérieure », petit-déjeuner inclus",
    "L'enregistrement se fait à partir de 15 h. Nous nous réjouissons de vous accueillir."])
text("booking", "de", "Buchungsbestätigung Nr. {n} - Hotel Mirador", [
    "Sehr geehrte Frau {last},",
    "vielen Dank, dass Sie sich für das Hotel Mirador entschieden haben. Ihre Buchung Nr. {n} ist bestätigt.",
    "Anreise: Montag, 17.03.2025 / Abreise: Mittwoch, 19.03.2025 / Zimmer: „Doppelzimmer Superior“, inklusive Frühstück",
    "Check-in ist ab 15:00 Uhr möglich. Wir freuen uns auf Ihren Besuch."])

text("report", "en", "Weekly warehouse report - week 10", [
    "Weekly warehouse report, week 10",
    "Inbound pallets: 1,284 (plus 6% on week 9). Outbound orders: 3,912. Picking accuracy: 99.4%.",
    "Open issues: dock 4 door sensor replaced on Tuesday; two late trailers from the northern route.",
    "This report is generated automatically by the warehouse system."])
text("report", "pt", "Relatório semanal do armazém - semana 10", [
    "Relatório semanal do armazém, semana 10",
    "Paletes recebidos: 1.284 (alta de 6% sobre a semana 9). Pedidos expedidos: 3.912. Acuracidade de separação: 99,4%.",
    "Pendências: sensor da porta da doca 4 trocado na terça; duas carretas atrasadas da rota norte.",
    "Este relatório é gerado automaticamente pelo sistema do armazém."])
text("report", "es", "Informe semanal del almacén - semana 10", [
    "Informe semanal del almacén, semana 10",
    "Palés recibidos: 1.284 (un 6 % más que la semana 9). Pedidos expedidos: 3.912. Precisión de preparación: 99,4 %.",
    "Incidencias: sensor de la puerta del muelle 4 sustituido el martes; dos remolques con retraso de la ruta norte.",
    "Este informe lo genera automáticamente el sistema del almacén."])
text("report", "fr", "Rapport hebdomadaire de l'entrepôt - semaine 10", [
    "Rapport hebdomadaire de l'entrepôt, semaine 10",
    "Palettes reçues : 1 284 (+6 % par rapport à la semaine 9). Commandes expédiées : 3 912. Taux de préparation sans erreur : 99,4 %.",
    "Points ouverts : capteur de la porte du quai 4 remplacé mardi ; deux semi-remorques en retard sur la tournée nord.",
    "Ce rapport est généré automatiquement par le système de l'entrepôt."])
text("report", "de", "Wöchentlicher Lagerbericht - KW 10", [
    "Wöchentlicher Lagerbericht, KW 10",
    "Wareneingang: 1.284 Paletten (6 % mehr als in KW 9). Ausgelieferte Aufträge: 3.912. Kommissioniergenauigkeit: 99,4 %.",
    "Offene Punkte: Türsensor an Rampe 4 am Dienstag getauscht; zwei verspätete Auflieger von der Nordroute.",
    "Dieser Bericht wird automatisch vom Lagerverwaltungssystem erstellt."])

text("bill", "en", "Your electricity bill for February is ready", [
    "Hello {first},",
    "Your February bill of 86.42 EUR is ready and will be collected by direct debit on 14 March.",
    "Compared with January, your consumption fell by 11 percent, mostly thanks to milder weather.",
    "You can see the details and download the PDF in your customer area."], "See my bill")
text("bill", "pt", "Sua conta de luz de fevereiro está disponível", [
    "Olá {first},",
    "Sua conta de fevereiro, de R$ 286,42, está disponível e será debitada automaticamente em 14 de março.",
    "Em relação a janeiro, seu consumo caiu 11 por cento, principalmente por causa do clima mais ameno.",
    "Veja os detalhes e baixe o PDF na sua área do cliente."], "Ver minha conta")
text("bill", "es", "Tu factura de electricidad de febrero ya está disponible", [
    "Hola, {first}:",
    "Tu factura de febrero, de 86,42 EUR, ya está disponible y se cargará por domiciliación el 14 de marzo.",
    "Respecto a enero, tu consumo ha bajado un 11 por ciento, sobre todo por el tiempo más templado.",
    "Puedes ver el detalle y descargar el PDF en tu área de cliente."], "Ver mi factura")
text("bill", "fr", "Votre facture d'électricité de février est disponible", [
    "Bonjour {first},",
    "Votre facture de février, d'un montant de 86,42 EUR, est disponible et sera prélevée le 14 mars.",
    "Par rapport à janvier, votre consommation a baissé de 11 pour cent, surtout grâce à la douceur du temps.",
    "Retrouvez le détail et le PDF dans votre espace client."], "Voir ma facture")
text("bill", "de", "Ihre Stromrechnung für Februar ist da", [
    "Hallo {first},",
    "Ihre Februarrechnung über 86,42 EUR ist verfügbar und wird am 14. März per Lastschrift eingezogen.",
    "Im Vergleich zum Januar ist Ihr Verbrauch um 11 Prozent gesunken, vor allem wegen des milderen Wetters.",
    "Details und das PDF finden Sie in Ihrem Kundenbereich."], "Rechnung ansehen")

text("order", "en", "Order 48{n} confirmed", [
    "Hello {first},",
    "Order 48{n} confirmed: 2 x A4 binder, 1 x label printer ribbon.",
    "Total 64.80 EUR, paid by card. We will email you when it ships.",
    "{shop} customer service"])
text("order", "pt", "Pedido 48{n} confirmado", [
    "Olá {first},",
    "Order 48{n} confirmed: 2 x pasta A4, 1 x fita para impressora de etiquetas.",
    "Total R$ 164,80, pago no cartão. Avisaremos por e-mail quando for enviado.",
    "Atendimento {shop}"])
text("order", "es", "Pedido 48{n} confirmado", [
    "Hola, {first}:",
    "Order 48{n} confirmed: 2 x archivador A4, 1 x cinta para impresora de etiquetas.",
    "Total 64,80 EUR, pagado con tarjeta. Te avisaremos por correo cuando se envíe.",
    "Atención al cliente de {shop}"])
text("order", "fr", "Commande 48{n} confirmée", [
    "Bonjour {first},",
    "Order 48{n} confirmed: 2 x classeur A4, 1 x ruban pour imprimante d'étiquettes.",
    "Total 64,80 EUR, payé par carte. Nous vous écrirons lors de l'expédition.",
    "Service client {shop}"])
text("order", "de", "Bestellung 48{n} bestätigt", [
    "Hallo {first},",
    "Order 48{n} confirmed: 2 x Ordner A4, 1 x Farbband für Etikettendrucker.",
    "Summe 64,80 EUR, per Karte bezahlt. Wir melden uns, sobald die Sendung unterwegs ist.",
    "Kundenservice {shop}"])

text("lunch", "en", "Team lunch on Friday", [
    "Hi everyone,",
    "To celebrate the end of the quarter we are having a team lunch on Friday at 12:30 in the canteen.",
    "Please tell me about any dietary requirements by Wednesday.",
    "{colleague}"])
text("lunch", "pt", "Almoço da equipe na sexta", [
    "Oi, pessoal,",
    "Para comemorar o fim do trimestre, teremos um almoço da equipe na sexta às 12h30 no refeitório.",
    "Me avisem sobre restrições alimentares até quarta.",
    "{colleague}"])
text("lunch", "es", "Comida de equipo el viernes", [
    "Hola a todos:",
    "Para celebrar el cierre del trimestre, el viernes a las 14:00 tenemos comida de equipo en el comedor.",
    "Decidme antes del miércoles si tenéis alguna restricción alimentaria.",
    "{colleague}"])
text("lunch", "fr", "Déjeuner d'équipe vendredi", [
    "Bonjour à tous,",
    "Pour fêter la fin du trimestre, nous organisons un déjeuner d'équipe vendredi à 12 h 30 à la cantine.",
    "Merci de me signaler vos contraintes alimentaires d'ici mercredi.",
    "{colleague}"])
text("lunch", "de", "Teamessen am Freitag", [
    "Hallo zusammen,",
    "zum Quartalsende gibt es am Freitag um 12:30 Uhr ein gemeinsames Teamessen in der Kantine.",
    "Bitte sagt mir bis Mittwoch Bescheid, falls ihr etwas nicht essen könnt.",
    "{colleague}"])

text("thread", "en", "Re: Supplier visit next week", [
    "Hi {first},",
    "Tuesday at 10:00 works for me. I'll book the small meeting room and ask reception for two visitor badges.",
    "{colleague}"])
text("thread", "pt", "Re: Visita do fornecedor na próxima semana", [
    "Oi {first},",
    "Terça às 10h funciona para mim. Vou reservar a sala pequena e pedir dois crachás de visitante na recepção.",
    "{colleague}"])
text("thread", "es", "Re: Visita del proveedor la semana que viene", [
    "Hola, {first}:",
    "El martes a las 10:00 me viene bien. Reservo la sala pequeña y pido dos tarjetas de visita en recepción.",
    "{colleague}"])
text("thread", "fr", "RE: Visite du fournisseur la semaine prochaine", [
    "Bonjour {first},",
    "Mardi à 10 h me convient. Je réserve la petite salle et je demande deux badges visiteurs à l'accueil.",
    "{colleague}"])
text("thread", "de", "AW: Lieferantenbesuch nächste Woche", [
    "Hallo {first},",
    "Dienstag um 10:00 Uhr passt mir. Ich buche den kleinen Besprechungsraum und bestelle zwei Besucherausweise am Empfang.",
    "{colleague}"])

text("renew", "en", "Your {brand} subscription renews in 7 days", [
    "Hello {first},",
    "Your {brand} business plan renews on 14 March 2025 for 240.00 EUR per year.",
    "If the card on file has expired, update your payment method before then to avoid an interruption of service.",
    "You can change or cancel your plan at any time in your account settings."], "Manage subscription")
text("renew", "pt", "Sua assinatura {brand} será renovada em 7 dias", [
    "Olá {first},",
    "Seu plano empresarial {brand} será renovado em 14 de março de 2025 por R$ 840,00 ao ano.",
    "Se o cartão cadastrado estiver vencido, atualize a forma de pagamento antes disso para evitar a interrupção do serviço.",
    "Você pode alterar ou cancelar o plano a qualquer momento nas configurações da conta."], "Gerenciar assinatura")
text("renew", "es", "Tu suscripción a {brand} se renueva en 7 días", [
    "Hola, {first}:",
    "Tu plan de empresa de {brand} se renueva el 14 de marzo de 2025 por 240,00 EUR al año.",
    "Si la tarjeta registrada ha caducado, actualiza el método de pago antes de esa fecha para evitar una interrupción del servicio.",
    "Puedes cambiar o cancelar el plan cuando quieras en la configuración de tu cuenta."], "Gestionar suscripción")
text("renew", "fr", "Votre abonnement {brand} sera renouvelé dans 7 jours", [
    "Bonjour {first},",
    "Votre offre entreprise {brand} sera renouvelée le 14 mars 2025 pour 240,00 EUR par an.",
    "Si la carte enregistrée a expiré, mettez à jour votre moyen de paiement d'ici là pour éviter une interruption du service.",
    "Vous pouvez modifier ou résilier votre offre à tout moment dans les paramètres de votre compte."], "Gérer mon abonnement")
text("renew", "de", "Ihr {brand}-Abonnement verlängert sich in 7 Tagen", [
    "Hallo {first},",
    "Ihr {brand}-Businesstarif verlängert sich am 14. März 2025 für 240,00 EUR pro Jahr.",
    "Falls die hinterlegte Karte abgelaufen ist, aktualisieren Sie bitte vorher Ihre Zahlungsmethode, um eine Unterbrechung des Dienstes zu vermeiden.",
    "Sie können Ihren Tarif jederzeit in den Kontoeinstellungen ändern oder kündigen."], "Abonnement verwalten")

text("verify", "en", "Confirm your email address for {brand}", [
    "Welcome to {brand}, {first}!",
    "Please confirm your email address to finish creating your account.",
    "Your verification code is 482 913. It expires in 15 minutes.",
    "If you did not sign up, you can ignore this message."], "Confirm email address")
text("verify", "pt", "Confirme seu endereço de e-mail no {brand}", [
    "Bem-vinda ao {brand}, {first}!",
    "Confirme seu endereço de e-mail para concluir a criação da conta.",
    "Seu código de verificação é 482 913. Ele expira em 15 minutos.",
    "Se você não se cadastrou, ignore esta mensagem."], "Confirmar e-mail")
text("verify", "es", "Confirma tu dirección de correo en {brand}", [
    "¡Bienvenida a {brand}, {first}!",
    "Confirma tu dirección de correo electrónico para terminar de crear tu cuenta.",
    "Tu código de verificación es 482 913. Caduca en 15 minutos.",
    "Si no te has registrado, ignora este mensaje."], "Confirmar correo")
text("verify", "fr", "Confirmez votre adresse e-mail sur {brand}", [
    "Bienvenue sur {brand}, {first} !",
    "Merci de confirmer votre adresse e-mail pour finaliser la création de votre compte.",
    "Votre code de vérification est 482 913. Il expire dans 15 minutes.",
    "Si vous ne vous êtes pas inscrite, ignorez ce message."], "Confirmer mon adresse")
text("verify", "de", "Bestätigen Sie Ihre E-Mail-Adresse für {brand}", [
    "Willkommen bei {brand}, {first}!",
    "Bitte bestätigen Sie Ihre E-Mail-Adresse, um die Einrichtung Ihres Kontos abzuschließen.",
    "Ihr Bestätigungscode lautet 482 913. Er ist 15 Minuten gültig.",
    "Falls Sie sich nicht registriert haben, können Sie diese Nachricht ignorieren."], "E-Mail-Adresse bestätigen")

# Quoted history for replies (thread hijack, internal threads, padding).
QUOTE_INTRO = {
    "en": "On {date}, {who} wrote:",
    "pt": "Em {date}, {who} escreveu:",
    "es": "El {date}, {who} escribió:",
    "fr": "Le {date}, {who} a écrit :",
    "de": "Am {date} schrieb {who}:",
}
QUOTE_DATES = {
    "en": ["Mon, 3 Mar 2025 at 10:02", "Fri, 28 Feb 2025 at 16:40", "Thu, 27 Feb 2025 at 09:15"],
    "pt": ["seg., 3 de mar. de 2025 às 10:02", "sex., 28 de fev. de 2025 às 16:40", "qui., 27 de fev. de 2025 às 09:15"],
    "es": ["lun, 3 mar 2025 a las 10:02", "vie, 28 feb 2025 a las 16:40", "jue, 27 feb 2025 a las 9:15"],
    "fr": ["lun. 3 mars 2025 à 10:02", "ven. 28 févr. 2025 à 16:40", "jeu. 27 févr. 2025 à 09:15"],
    "de": ["Mo., 3. März 2025 um 10:02", "Fr., 28. Feb. 2025 um 16:40", "Do., 27. Feb. 2025 um 09:15"],
}
HISTORY = {
    "hijack": {
        "en": ["Thanks, the pallets arrived this morning. Could you send the final invoice for PO 4471 when it is ready?",
               "The second delivery is scheduled for Thursday. I will confirm the quantities once the truck is loaded."],
        "pt": ["Obrigada, os paletes chegaram hoje de manhã. Pode enviar a fatura final do pedido 4471 quando estiver pronta?",
               "A segunda entrega está prevista para quinta. Confirmo as quantidades assim que o caminhão for carregado."],
        "es": ["Gracias, los palés han llegado esta mañana. ¿Puedes enviarme la factura final del pedido 4471 cuando la tengas?",
               "La segunda entrega está prevista para el jueves. Confirmaré las cantidades en cuanto se cargue el camión."],
        "fr": ["Merci, les palettes sont arrivées ce matin. Peux-tu m'envoyer la facture définitive de la commande 4471 quand elle sera prête ?",
               "La deuxième livraison est prévue jeudi. Je confirmerai les quantités dès que le camion sera chargé."],
        "de": ["Danke, die Paletten sind heute Morgen angekommen. Kannst du mir die Schlussrechnung zur Bestellung 4471 schicken, sobald sie fertig ist?",
               "Die zweite Lieferung ist für Donnerstag geplant. Die Mengen bestätige ich, sobald der Lkw beladen ist."],
    },
    "thread": {
        "en": ["Could we host the Fabrikam visitors next week? Tuesday or Wednesday morning would suit them.",
               "Sure, which day works best for you?"],
        "pt": ["Podemos receber os visitantes do fornecedor na próxima semana? Terça ou quarta de manhã seria bom para eles.",
               "Claro, qual dia é melhor para você?"],
        "es": ["¿Podemos recibir a los visitantes del proveedor la semana que viene? Les iría bien martes o miércoles por la mañana.",
               "Claro, ¿qué día te viene mejor?"],
        "fr": ["Pouvons-nous recevoir les visiteurs du fournisseur la semaine prochaine ? Mardi ou mercredi matin leur conviendrait.",
               "Bien sûr, quel jour t'arrange le mieux ?"],
        "de": ["Können wir die Besucher des Lieferanten nächste Woche empfangen? Dienstag oder Mittwoch vormittags würde ihnen passen.",
               "Klar, welcher Tag passt dir am besten?"],
    },
}
# Sentences for the long thread a lure is buried under.
PADDING = {
    "en": ["Thanks for the notes from Tuesday, they match what I wrote down.",
           "The supplier confirmed the new loading times for the northern depot.",
           "Could someone check whether the forklift training is booked for March?",
           "I have added the revised budget lines to the planning sheet.",
           "We agreed to review the pallet counts again at the end of the month.",
           "The customer asked for a short summary of the delivery incidents.",
           "Please remember that the warehouse is closed on the public holiday.",
           "I will circulate the updated agenda before Thursday's call."],
    "pt": ["Obrigado pelas notas de terça, batem com o que anotei.",
           "O fornecedor confirmou os novos horários de carga do depósito norte.",
           "Alguém pode verificar se o treinamento de empilhadeira está marcado para março?",
           "Acrescentei as linhas revisadas do orçamento na planilha de planejamento.",
           "Combinamos revisar a contagem de paletes de novo no fim do mês.",
           "O cliente pediu um resumo curto dos incidentes de entrega.",
           "Lembrem que o armazém fecha no feriado.",
           "Vou circular a pauta atualizada antes da chamada de quinta."],
    "es": ["Gracias por las notas del martes, coinciden con lo que apunté.",
           "El proveedor ha confirmado los nuevos horarios de carga del almacén norte.",
           "¿Alguien puede comprobar si la formación de carretillas está reservada para marzo?",
           "He añadido las líneas revisadas del presupuesto a la hoja de planificación.",
           "Quedamos en revisar de nuevo el recuento de palés a final de mes.",
           "El cliente ha pedido un resumen breve de las incidencias de entrega.",
           "Recordad que el almacén cierra el día festivo.",
           "Enviaré el orden del día actualizado antes de la llamada del jueves."],
    "fr": ["Merci pour les notes de mardi, elles correspondent à ce que j'ai noté.",
           "Le fournisseur a confirmé les nouveaux horaires de chargement du dépôt nord.",
           "Quelqu'un peut-il vérifier que la formation cariste est bien réservée pour mars ?",
           "J'ai ajouté les lignes budgétaires révisées dans le tableau de planification.",
           "Nous avons convenu de revoir le comptage des palettes à la fin du mois.",
           "Le client a demandé une courte synthèse des incidents de livraison.",
           "Pensez que l'entrepôt est fermé le jour férié.",
           "Je diffuserai l'ordre du jour mis à jour avant l'appel de jeudi."],
    "de": ["Danke für die Notizen vom Dienstag, sie decken sich mit meinen.",
           "Der Lieferant hat die neuen Ladezeiten für das Nordlager bestätigt.",
           "Kann jemand prüfen, ob die Staplerschulung für März gebucht ist?",
           "Ich habe die überarbeiteten Budgetzeilen in die Planungstabelle eingetragen.",
           "Wir haben vereinbart, die Palettenzählung Ende des Monats erneut zu prüfen.",
           "Der Kunde hat um eine kurze Zusammenfassung der Lieferstörungen gebeten.",
           "Denkt bitte daran, dass das Lager am Feiertag geschlossen ist.",
           "Ich schicke die aktualisierte Tagesordnung vor dem Termin am Donnerstag."],
}
FOOTERS = {
    "en": "This message was scanned by Gatewarden Mail Filter. No threats were found.",
    "pt": "Esta mensagem foi verificada pelo Gatewarden Mail Filter. Nenhuma ameaça encontrada.",
    "es": "Este mensaje ha sido analizado por Gatewarden Mail Filter. No se han encontrado amenazas.",
    "fr": "Ce message a été analysé par Gatewarden Mail Filter. Aucune menace détectée.",
    "de": "Diese Nachricht wurde von Gatewarden Mail Filter geprüft. Es wurden keine Bedrohungen gefunden.",
}
UNSUB = {
    "en": ("Unsubscribe", "Manage preferences"),
    "pt": ("Cancelar inscrição", "Preferências"),
    "es": ("Darse de baja", "Preferencias"),
    "fr": ("Se désinscrire", "Gérer mes préférences"),
    "de": ("Abmelden", "Einstellungen verwalten"),
}
PAY = {"en": "Pay the fee", "pt": "Pagar a taxa", "es": "Pagar la tasa", "fr": "Payer les frais", "de": "Gebühr bezahlen"}
RSVP = {
    "en": ("Yes", "Maybe", "No"), "pt": ("Sim", "Talvez", "Não"), "es": ("Sí", "Quizás", "No"),
    "fr": ("Oui", "Peut-être", "Non"), "de": ("Ja", "Vielleicht", "Nein"),
}

# ---------------------------------------------------------------------------
# MIME by hand: a part is (headers, body bytes); nothing here is random.
# ---------------------------------------------------------------------------

class Part:
    def __init__(self, headers: list[tuple[str, str]], body: bytes):
        self.headers = headers
        self.body = body

    def bytes(self) -> bytes:
        head = "".join(f"{k}: {v}\n" for k, v in self.headers)
        return head.encode("ascii") + b"\n" + self.body


def ascii_fold(s: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", s) if not unicodedata.combining(c))


def slug(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", ".", ascii_fold(s).lower()).strip(".")


def ew_q(s: str, charset: str = "UTF-8") -> str:
    out = []
    for b in s.encode("utf-8"):
        c = chr(b)
        if c == " ":
            out.append("_")
        elif c.isascii() and (c.isalnum() or c in "!*+-/"):
            out.append(c)
        else:
            out.append(f"={b:02X}")
    return f"=?{charset}?Q?{''.join(out)}?="


def ew_b(s: str, charset: str = "UTF-8") -> str:
    return f"=?{charset}?B?{base64.b64encode(s.encode('utf-8')).decode()}?="


def chunks(s: str, n: int) -> list[str]:
    return [s[i:i + n] for i in range(0, len(s), n)] or [""]


def hdr_text(s: str, enc: str = "Q") -> str:
    """A header value: ASCII as is, else encoded words split at character
    boundaries and folded, as mail clients write long subjects."""
    if s.isascii():
        return s
    f = ew_q if enc == "Q" else ew_b
    return "\n ".join(f(c) for c in chunks(s, 18))


def addr(name: str, mailbox: str) -> str:
    if not name:
        return mailbox
    if name.isascii():
        if re.search(r"[,.;:@()<>\[\]\"]", name):
            return f'"{name}" <{mailbox}>'
        return f"{name} <{mailbox}>"
    return f"{ew_q(name)} <{mailbox}>"


def text_part(content: str, subtype: str = "plain", charset: str = "utf-8",
              cte: str = "quoted-printable", ct_raw: str | None = None) -> Part:
    codec = {"windows-1252": "cp1252", "iso-8859-1": "latin-1"}.get(charset, charset)
    data = content.encode(codec)
    if cte == "quoted-printable":
        body = quopri.encodestring(data)
    elif cte == "base64":
        body = base64.encodebytes(data)
    else:
        body = data if data.endswith(b"\n") else data + b"\n"
    ct = ct_raw or f"text/{subtype}; charset={charset}"
    return Part([("Content-Type", ct), ("Content-Transfer-Encoding", cte)], body)


def multipart(subtype: str, parts: list[Part], boundary: str, extra: str = "") -> Part:
    body = b"This is a multi-part message in MIME format.\n\n"
    for p in parts:
        body += f"--{boundary}\n".encode() + p.bytes() + b"\n"
    body += f"--{boundary}--\n".encode()
    return Part([("Content-Type", f'multipart/{subtype}; boundary="{boundary}"{extra}')], body)


def attachment(name: str, ctype: str, data: bytes) -> Part:
    return Part([
        ("Content-Type", f'{ctype}; name="{name}"'),
        ("Content-Disposition", f'attachment; filename="{name}"'),
        ("Content-Transfer-Encoding", "base64"),
    ], base64.encodebytes(data))


def small_zip(names: list[str], seed: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for i, n in enumerate(names):
            info = zipfile.ZipInfo(n, date_time=(2025, 3, 1, 9, 0, 0))
            z.writestr(info, f"%PDF-1.4\n% placeholder document {seed}-{i}\n%%EOF\n")
    return buf.getvalue()


# ---- HTML ----

def esc(s: str) -> str:
    return _html.escape(s, quote=True)


FONT = "font-family:Helvetica,Arial,sans-serif"


def button(href: str, label: str) -> str:
    return (f'<a href="{esc(href)}" style="display:inline-block;background:#0a58ca;color:#ffffff;'
            f'padding:10px 22px;border-radius:4px;text-decoration:none;{FONT};font-size:15px">{esc(label)}</a>')


def html_doc(inner: str, title: str = "") -> str:
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width\"><title>{esc(title)}</title>"
            "<style>a{color:#0a58ca} @media (max-width:600px){.wrap{width:100%!important}}</style>"
            f"</head>\n<body style=\"margin:0;background:#f4f5f7\">\n{inner}\n</body></html>\n")


def preheader_div(text_: str) -> str:
    return ('<div style="display:none;font-size:1px;color:#f4f5f7;line-height:1px;max-height:0px;'
            f'max-width:0px;opacity:0;overflow:hidden;">{esc(text_)}</div>\n')


def html_simple(lines: list[str], cta: tuple[str, str] | None = None, footer: str = "",
                preheader: str | None = None, title: str = "") -> str:
    body = "".join(f'<p style="margin:0 0 14px 0">{esc(l)}</p>\n' for l in lines)
    if cta:
        body += f'<p style="margin:18px 0">{button(cta[1], cta[0])}</p>\n'
    inner = (preheader_div(preheader) if preheader else "") + (
        '<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center">\n'
        f'<table class="wrap" role="presentation" width="600" style="background:#ffffff;{FONT};'
        'font-size:15px;color:#222"><tr><td style="padding:28px">\n'
        f"{body}{footer}</td></tr></table>\n</td></tr></table>")
    return html_doc(inner, title)


def mjml_block(inner: str, size: int = 16, align: str = "left") -> str:
    return ('<tr><td align="%s" style="font-size:0px;padding:10px 25px;word-break:break-word;">'
            '<div style="font-family:Ubuntu, Helvetica, Arial, sans-serif;font-size:%dpx;line-height:1.5;'
            'text-align:%s;color:#222222;">%s</div></td></tr>\n' % (align, size, align, inner))


def mjml_button(href: str, label: str) -> str:
    return ('<tr><td align="center" style="font-size:0px;padding:10px 25px;word-break:break-word;">'
            '<table border="0" cellpadding="0" cellspacing="0" role="presentation" style="border-collapse:separate;'
            'line-height:100%;"><tr><td align="center" bgcolor="#0a58ca" role="presentation" style="border:none;'
            'border-radius:3px;cursor:auto;padding:10px 25px;background:#0a58ca;" valign="middle">'
            f'<a href="{esc(href)}" style="display:inline-block;background:#0a58ca;color:#ffffff;'
            'font-family:Ubuntu, Helvetica, Arial, sans-serif;font-size:13px;font-weight:normal;line-height:120%;'
            f'margin:0;text-decoration:none;text-transform:none;" target="_blank">{esc(label)}</a>'
            '</td></tr></table></td></tr>\n')


def html_mjml(blocks: list[str], preheader: str | None = None, title: str = "") -> str:
    """The MJML layout: every column wrapper sets `font-size:0px` (to kill
    inline-block gaps) and each text block sets its visible size again."""
    rows = "".join(blocks)
    inner = (preheader_div(preheader) if preheader else "") + (
        '<div style="background-color:#f4f5f7;">\n'
        '<div style="margin:0px auto;max-width:600px;background:#ffffff;">\n'
        '<table align="center" border="0" cellpadding="0" cellspacing="0" role="presentation" '
        'style="background:#ffffff;width:100%;"><tbody><tr>'
        '<td style="direction:ltr;font-size:0px;padding:20px 0;text-align:center;">\n'
        '<div class="mj-column-per-100 mj-outlook-group-fix" style="font-size:0px;text-align:left;'
        'direction:ltr;display:inline-block;vertical-align:top;width:100%;">\n'
        '<table border="0" cellpadding="0" cellspacing="0" role="presentation" style="vertical-align:top;" '
        f'width="100%"><tbody>\n{rows}</tbody></table>\n</div>\n'
        '</td></tr></tbody></table>\n</div>\n</div>')
    return html_doc(inner, title)


def plain(lines: list[str], cta: tuple[str, str] | None = None, extra: list[str] | None = None) -> str:
    out = list(lines)
    if cta:
        out.append(f"{cta[0]}: {cta[1]}")
    out.extend(extra or [])
    return "\n\n".join(out) + "\n"


def alternative(lines, cta, bnd, footer_html="", preheader=None, footer_text=None, title="") -> Part:
    return multipart("alternative", [
        text_part(plain(lines, cta, footer_text)),
        text_part(html_simple(lines, cta, footer_html, preheader, title), "html"),
    ], bnd)


# ---------------------------------------------------------------------------
# The messages: 20 phishing and 20 legitimate slots, each written in every
# language. A slot fixes the pattern; the language fixes the words and the
# world.
# ---------------------------------------------------------------------------

class FormatVars(dict):
    def __missing__(self, key):  # a typo in a template must fail, not print "{x}"
        raise KeyError(f"template placeholder {{{key}}} has no value")


def digest(s: str) -> str:
    return hashlib.sha256(s.encode()).hexdigest()


class Msg:
    """One message being written: its id, language, world and words."""

    def __init__(self, lang: str, slot: str, index: int):
        self.lang, self.slot, self.index = lang, slot, index
        self.id = f"e4r-{lang}-{slot}"
        self.c = CTX[lang]
        h = digest(self.id)
        self.tok = h[:16]
        self.n = 1000 + int(h[16:22], 16) % 9000
        self.trk = f"{'CPRBEF'[index % 6]}{'XW'[index % 2]}{int(h[22:30], 16) % 10**9:09d}{lang.upper()}"
        self.to_name = f"{self.c['first']} {self.c['last']}"
        self.to_mail = f"{slug(self.c['first'])}.{slug(self.c['last'])}@{self.c['dom']}"
        self.date = dt.datetime(2025, 3, 3, 7, 5, tzinfo=dt.timezone.utc) + dt.timedelta(minutes=97 * index + 13 * LANGS.index(lang))
        self.vars = FormatVars(
            first=self.c["first"], last=self.c["last"], email=self.to_mail, n=self.n, trk=self.trk,
            ceo=self.c["ceo"], colleague=self.c["colleague"], vendor=self.c["vendor"][0],
            vperson=self.c["vendor"][2], payroll=self.c["payroll"][0], parcel=self.c["parcel"][0],
            shop=self.c["shop"][0], list=self.c["lst"][0], brand="", sender="", url="")

    def t(self, kind: str, **over) -> dict:
        """The text `kind` in this language, placeholders filled."""
        src = T[kind][self.lang]
        v = FormatVars(self.vars)
        v.update(over)
        lines = [l.format_map(v) for l in src["lines"]]
        return dict(subj=src["subj"].format_map(v), lines=lines,
                    cta=src["cta"].format_map(v) if src["cta"] else None,
                    must=" ".join(lines[src["key"]].split()[:6]))

    def bnd(self, k: int = 0) -> str:
        return f"----=_Part_{self.tok[:8]}_{k}"

    def mid(self, domain: str) -> str:
        return f"<{self.tok}.{self.n}@{domain}>"

    def datestr(self) -> str:
        return email.utils.format_datetime(self.date)


def auth_pass(receiver: str, domain: str, ip: str) -> str:
    return (f"mx.{receiver}; spf=pass (sender IP is {ip}) smtp.mailfrom={domain}; "
            f"dkim=pass header.d={domain} header.s=s1; dmarc=pass action=none header.from={domain}")


def auth_weak(receiver: str, domain: str, ip: str, k: int) -> str:
    variants = [
        f"mx.{receiver}; spf=softfail (sender IP is {ip}) smtp.mailfrom={domain}; dkim=none; dmarc=fail header.from={domain}",
        f"mx.{receiver}; spf=pass (sender IP is {ip}) smtp.mailfrom={domain}; dkim=none; dmarc=none header.from={domain}",
        f"mx.{receiver}; spf=neutral smtp.mailfrom={domain}; dkim=fail header.d={domain}; dmarc=fail header.from={domain}",
    ]
    return variants[k % len(variants)]


def ip_for(m: Msg, base: str = "203.0.113") -> str:
    return f"{base}.{int(m.tok[:2], 16) % 250 + 2}"


def org_fake(c: dict) -> str:
    """A typo of the recipient's own domain (a doubled letter), as BEC uses."""
    label = c["dom"].split(".")[0]
    cut = len(label) // 2
    return label[:cut] + label[cut - 1] + label[cut:] + ".com"


def person_mail(name: str, domain: str) -> str:
    return f"{slug(name)}@{domain}"


def quoted_history(m: Msg, kind: str, earlier_author: tuple[str, str]) -> list[str]:
    """Two earlier messages, quoted as mail clients quote them."""
    dates = QUOTE_DATES[m.lang]
    h = HISTORY[kind][m.lang]
    me = f"{m.to_name} <{m.to_mail}>"
    them = f"{earlier_author[0]} <{earlier_author[1]}>"
    out = [QUOTE_INTRO[m.lang].format(date=dates[0], who=me), "> " + h[0], ">",
           "> " + QUOTE_INTRO[m.lang].format(date=dates[1], who=them), ">> " + h[1]]
    return out


def padding_thread(m: Msg, min_chars: int) -> str:
    """Quoted earlier messages, at least `min_chars` long."""
    people = [m.c["colleague"], m.c["ceo"], m.c["vendor"][2], m.to_name]
    pad = PADDING[m.lang]
    out: list[str] = []
    k = 0
    while sum(len(x) + 1 for x in out) < min_chars:
        who = people[k % len(people)]
        date = QUOTE_DATES[m.lang][k % 3]
        out.append("> " + QUOTE_INTRO[m.lang].format(date=date, who=who))
        for j in range(4):
            out.append("> " + pad[(k * 3 + j) % len(pad)])
        out.append(">")
        k += 1
    return "\n".join(out)


# Each slot returns (label, patterns, top headers, body part, must_show).

def headers(m: Msg, frm: str, subj: str, to: str | None = None, extra: list | None = None,
            msgid_domain: str | None = None) -> list[tuple[str, str]]:
    dom = msgid_domain or frm.rsplit("@", 1)[-1].rstrip(">")
    h = [("From", frm), ("To", to if to is not None else addr(m.to_name, m.to_mail)),
         ("Subject", hdr_text(subj)), ("Date", m.datestr()), ("Message-ID", m.mid(dom))]
    return h + (extra or [])


def p01(m: Msg):  # credential harvest from a lookalike bank domain, plain text
    bank, fake = m.c["bank"][0], m.c["bank_fake"][0]
    t = m.t("cred", brand=bank)
    url = f"https://{fake}/online/verify?session={m.tok}"
    frm = addr(bank, f"security@{fake}")
    h = headers(m, frm, t["subj"], extra=[("Authentication-Results", auth_weak(m.c["dom"], fake, ip_for(m), 1))])
    return "Phishing", ["credential-harvest", "lookalike", "plain-text"], h, text_part(plain(t["lines"], (t["cta"], url))), t["must"]


def p02(m: Msg):  # suspension; the link text shows the brand's URL, the href does not
    brand, dom = m.c["telecom"]
    fake = m.c["telecom_fake"]
    t = m.t("suspend", brand=brand)
    href = f"https://{fake}/restore/{m.tok}"
    shown = f"https://www.{dom}/account/restore"
    foot = f'<p style="font-size:12px;color:#666">{esc(brand)} &middot; <a href="{esc(href)}">{esc(shown)}</a></p>'
    body = multipart("alternative", [
        text_part(plain(t["lines"], (t["cta"], href))),
        text_part(html_simple(t["lines"], (t["cta"], href), foot), "html"),
    ], m.bnd())
    frm = addr(brand, f"account@ns1.qv7{m.tok[:4]}.xyz")
    h = headers(m, frm, t["subj"], extra=[("Authentication-Results", auth_weak(m.c["dom"], f"ns1.qv7{m.tok[:4]}.xyz", ip_for(m), 0))])
    return "Phishing", ["account-suspension", "link-text-mismatch", "html"], h, body, t["must"]


def p03(m: Msg):  # overdue invoice with an HTML "invoice" attachment holding a login form
    vendor, _, person = m.c["vendor"]
    fake = m.c["vendor_fake"]
    t = m.t("invoice")
    form = html_doc(f'<form action="https://{fake}/inv/auth.php" method="post"><p>{esc(t["lines"][1])}</p>'
                    '<input name="email"><input name="password" type="password"><button>OK</button></form>')
    lines = t["lines"][:2] + [t["lines"][2], t["lines"][3]]
    body = multipart("mixed", [text_part(plain(lines)),
                               attachment(f"INV-{m.n}.html", "text/html", form.encode())], m.bnd())
    h = headers(m, addr(f"{vendor} Accounts", f"accounts@{fake}"), t["subj"],
                extra=[("Authentication-Results", auth_weak(m.c["dom"], fake, ip_for(m), 1))])
    return "Phishing", ["invoice-fraud", "lookalike", "html-attachment"], h, body, t["must"]


def p04(m: Msg):  # changed bank details from a lookalike vendor domain, no link
    vendor, _, person = m.c["vendor"]
    fake = m.c["vendor_fake"]
    t = m.t("bankchange")
    h = headers(m, addr(person, person_mail(person, fake)), t["subj"],
                extra=[("Authentication-Results", auth_pass(m.c["dom"], fake, ip_for(m)))])
    return "Phishing", ["bank-details-change", "lookalike", "no-link", "auth-pass-attacker"], h, text_part(plain(t["lines"])), t["must"]


def p05(m: Msg):  # business-email compromise: no link, no urgency words, freemail sender
    ceo = m.c["ceo"]
    fm = m.c["freemail"]
    mailbox = f"{slug(ceo).replace('.', '')}.{m.n % 100}@{fm}"
    t = m.t("bec")
    h = headers(m, addr(ceo, mailbox), t["subj"],
                extra=[("Authentication-Results", auth_pass(m.c["dom"], fm, ip_for(m, "198.51.100")))])
    return "Phishing", ["bec", "no-link", "no-urgency", "freemail", "auth-pass-attacker"], h, text_part(plain(t["lines"]), cte="8bit"), t["must"]


def p06(m: Msg):  # payroll / direct-deposit harvest from a lookalike payroll domain
    name, _ = m.c["payroll"]
    fake = m.c["payroll_fake"]
    t = m.t("payroll")
    url = f"https://{fake}/sso/login?c={m.tok}"
    h = headers(m, addr(f"{name} HR", f"hr-notices@{fake}"), t["subj"],
                extra=[("Authentication-Results", auth_weak(m.c["dom"], fake, ip_for(m), 2))])
    return "Phishing", ["payroll-hr", "lookalike", "html"], h, alternative(t["lines"], (t["cta"], url), m.bnd()), t["must"]


def p07(m: Msg):  # delivery fee, SMS-style plain text on a .click domain
    fake = m.c["parcel_fake"]
    t = m.t("delivery")
    url = f"https://{fake}/pay?t={m.trk}"
    h = headers(m, addr(m.c["parcel"][0], f"noreply@{fake}"), t["subj"])
    return "Phishing", ["delivery-fee", "plain-text", "suspicious-tld"], h, text_part(plain(t["lines"] + [url])), t["must"]


def p08(m: Msg):  # document share from a lookalike of a file-sharing brand
    cloud = m.c["cloud"][0]
    fake = m.c["cloud_fake"][0]
    sender = m.c["vendor"][2]
    t = m.t("docshare", brand=cloud, sender=sender)
    url = f"https://{fake}/d/{m.tok}/view"
    h = headers(m, addr(f"{sender} via {cloud}", f"share-noreply@{fake}"), t["subj"],
                extra=[("Authentication-Results", auth_weak(m.c["dom"], fake, ip_for(m), 0))])
    return "Phishing", ["document-share", "lookalike", "html"], h, alternative(t["lines"], (t["cta"], url), m.bnd()), t["must"]


def p09(m: Msg):  # mailbox full, HTML only, the lure inside MJML font-size:0 wrappers
    fake = m.c["mailfake"]
    t = m.t("mailbox")
    url = f"https://{fake}/owa/quota?u={m.to_mail}"
    blocks = [mjml_block(esc(l)) for l in t["lines"][:3]] + [mjml_button(url, t["cta"]), mjml_block(esc(t["lines"][3]), 13)]
    body = text_part(html_mjml(blocks, title=t["subj"]), "html")
    h = headers(m, addr("IT Service Desk", f"it-desk@{fake}"), t["subj"])
    return "Phishing", ["mailbox-full", "mjml-font-size-0", "html-only"], h, body, t["must"]


def p10(m: Msg):  # tax refund
    tax = m.c["tax"][0]
    fake = m.c["tax_fake"]
    t = m.t("refund", brand=tax)
    url = f"https://{fake}/form/{m.tok}"
    h = headers(m, addr(tax, f"refunds@{fake}"), t["subj"],
                extra=[("Authentication-Results", auth_weak(m.c["dom"], fake, ip_for(m), 1))])
    return "Phishing", ["tax-refund", "html"], h, alternative(t["lines"], (t["cta"], url), m.bnd()), t["must"]


def p11(m: Msg):  # gift cards; the CEO's name on a lookalike of our own domain, replies to freemail
    ceo = m.c["ceo"]
    t = m.t("gift")
    reply = f"{slug(ceo).replace('.', '')}.office@{m.c['freemail']}"
    h = headers(m, addr(ceo, person_mail(ceo, org_fake(m.c))), t["subj"],
                extra=[("Reply-To", reply)])
    return "Phishing", ["gift-cards", "bec", "no-link", "reply-to-freemail"], h, text_part(plain(t["lines"])), t["must"]


def p12(m: Msg):  # thread hijack: a reply with real-looking quoted history, lure link
    vendor, vdom, person = m.c["vendor"]
    fake = m.c["vendor_fake"]
    url = f"https://docs-{vdom.split('.')[0]}.top/invoice/INV-{m.n}"
    t = m.t("hijack", url=url)
    hist = quoted_history(m, "hijack", (person, person_mail(person, vdom)))
    h = headers(m, addr(person, person_mail(person, fake)), t["subj"],
                extra=[("In-Reply-To", f"<{m.tok[::-1]}@{m.c['dom']}>"),
                       ("References", f"<{m.tok[2:12]}@{vdom}> <{m.tok[::-1]}@{m.c['dom']}>")])
    return "Phishing", ["thread-hijack", "lookalike", "quoted-history"], h, text_part(plain(t["lines"], extra=["\n".join(hist)])), t["must"]


def p13(m: Msg):  # suspension from an attacker domain that passes SPF, DKIM and DMARC
    cloud = m.c["cloud"][0]
    fake = m.c["cloud_fake"][1]
    t = m.t("suspend", brand=cloud)
    url = f"https://{fake}/account/restore?id={m.tok}"
    h = headers(m, addr(cloud, f"security@{fake}"), t["subj"],
                extra=[("Authentication-Results", auth_pass(m.c["dom"], fake, ip_for(m)))])
    return "Phishing", ["account-suspension", "auth-pass-attacker", "lookalike", "html"], h, alternative(t["lines"], (t["cta"], url), m.bnd()), t["must"]


def p14(m: Msg):  # bulk BCC: To is undisclosed-recipients; the share claims to come from a colleague
    cloud = m.c["cloud"][0]
    sender = m.c["colleague"]
    host = f"sh{m.tok[:5]}.xyz"
    t = m.t("docshare", brand=cloud, sender=sender)
    url = f"https://{host}/{m.tok}/doc"
    h = headers(m, addr(f"{sender} via {cloud}", f"noreply@{host}"), t["subj"], to="undisclosed-recipients:;")
    return "Phishing", ["document-share", "bulk-bcc", "undisclosed-recipients", "html"], h, alternative(t["lines"], (t["cta"], url), m.bnd()), t["must"]


def p15(m: Msg):  # bulk BCC with To = From
    host = f"mx{m.tok[:4]}.top"
    box = f"admin@{host}"
    t = m.t("mailbox")
    url = f"http://{host}/webmail/upgrade.php?e={m.to_mail}"
    h = headers(m, addr("Mail Administrator", box), t["subj"], to=box)
    return "Phishing", ["mailbox-full", "bulk-bcc", "to-equals-from", "plain-text"], h, text_part(plain(t["lines"], (t["cta"], url))), t["must"]


INVISIBLE = {"en": "\u200b", "pt": "\u200c", "es": "\u200d", "fr": "\u2060", "de": "\U000e0041"}


def p16(m: Msg):  # the display name hides an invisible character inside the brand
    bank = m.c["bank"][0]
    fake = m.c["bank_fake"][1]
    cut = len(bank) // 2
    shown = bank[:cut] + INVISIBLE[m.lang] + bank[cut:]
    t = m.t("cred", brand=bank)
    url = f"https://{fake}/auth/{m.tok}"
    frm = f"{ew_q(shown)} <alerts@{fake}>"
    h = headers(m, frm, t["subj"] + f" [{m.n}]", msgid_domain=fake)
    return "Phishing", ["credential-harvest", "zero-width-display-name", "lookalike", "html"], h, alternative(t["lines"], (t["cta"], url), m.bnd()), t["must"]


def p17(m: Msg):  # a quoted display name of adjacent encoded words split inside words
    parcel = m.c["parcel"][0]
    host = f"redelivery-{m.tok[:4]}.top"
    t = m.t("delivery")
    url = f"https://{host}/fee?ref={m.trk}"
    parts = [parcel[i:i + 4] for i in range(0, len(parcel), 4)]
    frm = '"' + " ".join(ew_q(p, "utf-8") for p in parts) + f'" <tracking@{host}>'
    h = headers(m, frm, t["subj"], msgid_domain=host)
    return "Phishing", ["delivery-fee", "rfc2047-split-display-name", "html"], h, alternative(t["lines"], (PAY[m.lang], url), m.bnd()), t["must"]


def p18(m: Msg):  # a long thread, and the lure link only after 6,000 characters
    fake = org_fake(m.c)
    host = f"notes-{m.c['dom'].split('.')[0]}.click"
    url = f"https://{host}/workspace/{m.tok}"
    t = m.t("padlure", url=url)
    colleague = m.c["colleague"]
    body = plain([t["lines"][0], padding_thread(m, 6500), t["lines"][1], t["lines"][2]])
    h = headers(m, addr(colleague, person_mail(colleague, fake)), t["subj"],
                to=", ".join([addr(m.to_name, m.to_mail), addr(m.c["ceo"], person_mail(m.c["ceo"], m.c["dom"]))]))
    return "Phishing", ["long-padding", "lure-past-cut", "thread", "lookalike"], h, text_part(plain([body])), host


def p19(m: Msg):  # `Content-Type: text/html charset=windows-1252` (no `;`), the only part
    fake = m.c["vendor_fake"]
    t = m.t("invoice")
    url = f"https://pay.{fake}/invoice/{m.n}"
    doc = html_simple(t["lines"], (t["cta"], url), title=t["subj"])
    cte = "8bit" if m.lang in ("en", "pt", "es") else "quoted-printable"
    body = text_part(doc, "html", "windows-1252", cte, ct_raw="text/html charset=windows-1252")
    h = headers(m, addr(f"{m.c['vendor'][0]} Billing", f"billing@{fake}"), t["subj"] + " - 2nd reminder")
    return "Phishing", ["invoice-fraud", "malformed-content-type", "cp1252", "lookalike"], h, body, t["must"]


def b64_then_footer(content: str, subtype: str, footer: str) -> Part:
    """A base64 body with a plain-text footer appended by a gateway."""
    p = text_part(content, subtype, cte="base64")
    p.body = p.body + b"\n" + footer.encode("utf-8") + b"\n"
    return p


def p20(m: Msg):  # base64 body followed by a plain-text footer
    bank = m.c["bank"][0]
    fake = m.c["bank_fake"][2]
    t = m.t("cred", brand=bank)
    url = f"https://{fake}/secure/{m.tok}"
    if m.lang in ("en", "fr", "de"):
        body = b64_then_footer(html_simple(t["lines"], (t["cta"], url)), "html", FOOTERS[m.lang])
    else:
        body = b64_then_footer(plain(t["lines"], (t["cta"], url)), "plain", FOOTERS[m.lang])
    h = headers(m, addr(f"{bank} Online", f"service@{fake}"), t["subj"] + f" ({m.n})")
    return "Phishing", ["credential-harvest", "base64-plus-footer", "lookalike"], h, body, t["must"]


# ---- legitimate ----

def l01(m: Msg):  # a password reset the user asked for
    brand, dom = m.c["cloud"]
    t = m.t("reset", brand=brand)
    url = f"https://accounts.{dom}/reset?token={m.tok}"
    h = headers(m, addr(brand, f"no-reply@accounts.{dom}"), t["subj"],
                extra=[("Authentication-Results", auth_pass(m.c["dom"], dom, ip_for(m, "192.0.2")))])
    return "Legitimate", ["password-reset", "html", "auth-pass"], h, alternative(t["lines"], (t["cta"], url), m.bnd()), t["must"]


def l02(m: Msg):  # security alert: new sign-in
    brand, dom = m.c["bank"]
    t = m.t("signin", brand=brand)
    url = f"https://www.{dom}/security/activity"
    h = headers(m, addr(brand, f"alerts@{dom}"), t["subj"],
                extra=[("Authentication-Results", auth_pass(m.c["dom"], dom, ip_for(m, "192.0.2")))])
    return "Legitimate", ["security-alert", "html", "auth-pass"], h, alternative(t["lines"], (t["cta"], url), m.bnd()), t["must"]


def l03(m: Msg):  # shipping notice with a tracking link on the carrier's domain
    shop, sdom = m.c["shop"]
    pdom = m.c["parcel"][1]
    t = m.t("ship")
    url = f"https://track.{pdom}/?n={m.trk}"
    h = headers(m, addr(shop, f"orders@{sdom}"), t["subj"],
                extra=[("Authentication-Results", auth_pass(m.c["dom"], sdom, ip_for(m, "192.0.2")))])
    return "Legitimate", ["shipping-notice", "carrier-tracking-link", "html"], h, alternative(t["lines"], (t["cta"], url), m.bnd()), t["must"]


def l04(m: Msg):  # a mailing-list post: From a member, Reply-To the list, List-Id
    lst, ldom, who, who_mail = m.c["lst"]
    t = m.t("listpost")
    post = f"{lst}@{ldom}"
    footer = ["_______________________________________________",
              f"{lst} mailing list -- {post}",
              f"https://{ldom}/mailman/listinfo/{lst}"]
    h = headers(m, addr(who, who_mail), t["subj"], to=post, extra=[
        ("Reply-To", post), ("Sender", f"{lst}-bounces@{ldom}"),
        ("List-Id", f"<{lst}.{ldom}>"), ("List-Post", f"<mailto:{post}>"),
        ("List-Unsubscribe", f"<https://{ldom}/mailman/options/{lst}>, <mailto:{lst}-leave@{ldom}>"),
        ("Precedence", "list"),
        ("Authentication-Results", f"mx.{m.c['dom']}; spf=pass smtp.mailfrom={ldom}; dkim=pass header.d={ldom}; dmarc=none header.from=mensah-consult.example")])
    return "Legitimate", ["mailing-list", "reply-to-list", "list-id"], h, text_part(plain(t["lines"], extra=["\n".join(footer)])), t["must"]


def ics(m: Msg, organizer: str, summary: str) -> str:
    start = "20250311T130000Z"
    return "\r\n".join([
        "BEGIN:VCALENDAR", "PRODID:-//Invented Calendar//EN", "VERSION:2.0", "METHOD:REQUEST",
        "BEGIN:VEVENT", f"DTSTART:{start}", "DTEND:20250311T140000Z", f"UID:{m.tok}@{m.c['dom']}",
        f"ORGANIZER;CN={ascii_fold(m.c['colleague'])}:mailto:{organizer}",
        f"ATTENDEE;ROLE=REQ-PARTICIPANT;PARTSTAT=NEEDS-ACTION:mailto:{m.to_mail}",
        f"SUMMARY:{ascii_fold(summary)}", "LOCATION:Room 3.2", "END:VEVENT", "END:VCALENDAR", ""])


def l05(m: Msg):  # calendar invite: the invite's HTML uses font-size:0 wrappers
    col = m.c["colleague"]
    org_mail = person_mail(col, m.c["dom"])
    t = m.t("invite", sender=col)
    join = f"https://meet.{m.c['dom']}/j/{m.n}{m.n}"
    yes, maybe, no = RSVP[m.lang]
    rsvp = " &middot; ".join(f'<a href="https://calendar.{m.c["dom"]}/rsvp?e={m.tok}&amp;r={i}">{esc(x)}</a>'
                             for i, x in enumerate((yes, maybe, no)))
    blocks = [mjml_block(esc(t["lines"][0]), 14), mjml_block(f"<b>{esc(t['lines'][1])}</b>", 20),
              mjml_block(esc(t["lines"][2])), mjml_block(esc(t["lines"][3])),
              mjml_button(join, t["cta"]), mjml_block(rsvp, 14, "center")]
    inv = ics(m, org_mail, t["lines"][1])
    cal = Part([("Content-Type", 'text/calendar; charset="utf-8"; method=REQUEST'),
                ("Content-Transfer-Encoding", "7bit")], inv.encode())
    alt = multipart("alternative", [text_part(plain(t["lines"], (t["cta"], join))),
                                    text_part(html_mjml(blocks), "html"), cal], m.bnd(1))
    body = multipart("mixed", [alt, attachment("invite.ics", "application/ics", inv.encode())], m.bnd(0))
    h = headers(m, addr(col, org_mail), t["subj"],
                extra=[("Authentication-Results", auth_pass(m.c["dom"], m.c["dom"], "10.20.0.5"))])
    return "Legitimate", ["calendar-invite", "mjml-font-size-0", "internal"], h, body, t["must"]


def l06(m: Msg):  # newsletter: hidden preheader, ESP tracking redirects, a pixel
    shop, sdom = m.c["shop"]
    t = m.t("news")
    esp = "links.mailwave-esp.example"
    track = lambda k: f"https://{esp}/ls/click?upn={digest(m.id + str(k))[:40]}"  # noqa: E731
    lines = t["lines"][:3]
    un, pref = UNSUB[m.lang]
    foot = (f'<p style="font-size:12px;color:#777"><a href="{track(1)}">www.{sdom}</a> &middot; '
            f'<a href="{track(2)}">{esc(un)}</a> &middot; <a href="{track(3)}">{esc(pref)}</a></p>'
            f'<img src="https://{esp}/o/{m.tok}.gif" width="1" height="1" alt="">')
    html = html_simple(lines, (t["cta"], track(0)), foot, preheader=t["lines"][3], title=t["subj"])
    body = multipart("alternative", [text_part(plain(lines, (t["cta"], track(0)), [f"{un}: {track(2)}"])),
                                     text_part(html, "html")], m.bnd())
    h = headers(m, addr(shop, f"news@{sdom}"), t["subj"], extra=[
        ("List-Unsubscribe", f"<{track(2)}>"),
        ("Authentication-Results", auth_pass(m.c["dom"], sdom, ip_for(m, "192.0.2")))])
    return "Legitimate", ["newsletter", "tracking-links", "preheader-hidden", "esp-redirect"], h, body, t["must"]


def l07(m: Msg):  # internal mail whose links a security gateway rewrote
    col = m.c["colleague"]
    t = m.t("gateway", colleague=col)
    u1 = f"https://intranet.{m.c['dom']}/expenses"
    u2 = f"https://intranet.{m.c['dom']}/guides/expenses-{m.n}.pdf"
    safe = lambda u: ("https://eur02.safelinks.protection.example/?url=" + u.replace(":", "%3A").replace("/", "%2F")  # noqa: E731
                      + f"&data=05%7C02%7C{m.tok}%7C0&reserved=0")
    defense = lambda u: f"https://urldefense.example/v3/__{u}__;!!Qm5x{m.tok[:6]}$"  # noqa: E731
    html_lines = [esc(t["lines"][0]), f'{esc(t["lines"][1])} <a href="{esc(safe(u1))}">{esc(u1)}</a>',
                  f'{esc(t["lines"][2])} <a href="{esc(safe(u2))}">{esc(u2)}</a>', esc(t["lines"][3]) + "<br>" + esc(t["lines"][4])]
    html = html_doc("".join(f"<p>{x}</p>\n" for x in html_lines))
    txt = plain([t["lines"][0], f"{t['lines'][1]} {defense(u1)}", f"{t['lines'][2]} {defense(u2)}", t["lines"][3] + "\n" + t["lines"][4]])
    body = multipart("alternative", [text_part(txt), text_part(html, "html")], m.bnd())
    h = headers(m, addr(col, person_mail(col, m.c["dom"])), t["subj"],
                extra=[("Authentication-Results", auth_pass(m.c["dom"], m.c["dom"], "10.20.0.5"))])
    return "Legitimate", ["gateway-rewritten-links", "safelinks", "urldefense", "internal"], h, body, t["must"]


def l08(m: Msg):  # release notes: version strings that look like IPs, SPF text with IPs
    brand, dom = m.c["saas"]
    t = m.t("release", brand=brand)
    ip = f"198.51.100.{m.n % 200 + 20}"
    url = f"https://docs.{dom}/releases/2.10.3.1"
    h = headers(m, addr(f"{brand} Releases", f"releases@{dom}"), t["subj"], extra=[
        ("Received-SPF", f"Pass (mx.{m.c['dom']}: domain of mail.{dom} designates {ip} as permitted sender) client-ip={ip};"),
        ("Authentication-Results", f"mx.{m.c['dom']}; spf=pass (sender IP is {ip}) smtp.mailfrom=mail.{dom}; "
                                   f"dkim=pass header.d={dom}; dmarc=pass header.from={dom}; arc=none (10.4.0.12)")])
    return "Legitimate", ["version-strings", "spf-ip-in-headers", "plain-text"], h, text_part(plain(t["lines"], (t["cta"], url))), t["must"]


def l09(m: Msg):  # the vendor's real invoices, attached as invoice.zip
    vendor, vdom, person = m.c["vendor"]
    t = m.t("zip")
    data = small_zip([f"invoice-2025-03-{k}.pdf" for k in (1, 2, 3)], m.id)
    body = multipart("mixed", [text_part(plain(t["lines"])), attachment("invoice.zip", "application/zip", data)], m.bnd())
    h = headers(m, addr(person, person_mail(person, vdom)), t["subj"],
                extra=[("Authentication-Results", auth_pass(m.c["dom"], vdom, ip_for(m, "192.0.2")))])
    return "Legitimate", ["attachment-zip", "invoice", "auth-pass"], h, body, t["must"]


def l10(m: Msg):  # a newsletter with CJK text
    brand, dom = m.c["school"]
    t = m.t("cjk", brand=brand)
    url = f"https://www.{dom}/members"
    h = headers(m, addr(brand, f"club@{dom}"), t["subj"],
                extra=[("Authentication-Results", auth_pass(m.c["dom"], dom, ip_for(m, "192.0.2")))])
    return "Legitimate", ["cjk-text", "newsletter", "html"], h, alternative(t["lines"], (t["cta"], url), m.bnd()), t["must"]


def l11(m: Msg):  # MJML newsletter (with a plain part, as MJML senders send)
    brand, dom = m.c["saas"]
    t = m.t("webinar")
    url = f"https://events.{dom}/webinar/live-traffic?src=mail"
    blocks = [mjml_block(f'<img src="https://cdn.{dom}/logo.png" alt="{esc(brand)}" width="120">'),
              mjml_block(esc(t["subj"]), 22)] + [mjml_block(esc(l)) for l in t["lines"]] + [mjml_button(url, t["cta"])]
    body = multipart("alternative", [text_part(plain(t["lines"], (t["cta"], url))),
                                     text_part(html_mjml(blocks, title=t["subj"]), "html")], m.bnd())
    h = headers(m, addr(brand, f"events@{dom}"), t["subj"],
                extra=[("Authentication-Results", auth_pass(m.c["dom"], dom, ip_for(m, "192.0.2")))])
    return "Legitimate", ["mjml-font-size-0", "newsletter", "webinar"], h, body, t["must"]


def l12(m: Msg):  # payment receipt
    brand, dom = m.c["telecom"]
    t = m.t("receipt")
    url = f"https://my.{dom}/billing/receipts/{m.n}"
    h = headers(m, addr(brand, f"billing@{dom}"), t["subj"],
                extra=[("Authentication-Results", auth_pass(m.c["dom"], dom, ip_for(m, "192.0.2")))])
    return "Legitimate", ["payment-receipt", "html"], h, alternative(t["lines"], (t["cta"], url), m.bnd()), t["must"]


def l13(m: Msg):  # `Content-Type: text/html charset=windows-1252` (no `;`), legitimately sent
    t = m.t("booking")
    doc = html_simple(t["lines"], title=t["subj"])
    body = text_part(doc, "html", "windows-1252", "8bit", ct_raw="text/html charset=windows-1252")
    h = headers(m, addr("Hotel Mirador", "reservations@hotel-mirador.example"), t["subj"])
    return "Legitimate", ["malformed-content-type", "cp1252", "booking"], h, body, t["must"]


def l14(m: Msg):  # base64 body followed by a gateway's plain-text footer
    t = m.t("report")
    if m.lang in ("en", "fr"):
        body = b64_then_footer(html_simple(t["lines"]), "html", FOOTERS[m.lang])
    else:
        body = b64_then_footer(plain(t["lines"]), "plain", FOOTERS[m.lang])
    h = headers(m, addr("Warehouse System", f"wms@{m.c['dom']}"), t["subj"],
                extra=[("Authentication-Results", auth_pass(m.c["dom"], m.c["dom"], "10.20.0.9"))])
    return "Legitimate", ["base64-plus-footer", "internal", "report"], h, body, t["must"]


UTILITY = {"en": "Voltaria Energy", "pt": "Voltaria Energia", "es": "Voltaria Energía", "fr": "Voltaria Énergie", "de": "Voltaria Energie"}


def l15(m: Msg):  # quoted-printable with soft line breaks (both parts)
    t = m.t("bill")
    url = f"https://customer.voltaria.example/bills/2025-02?account={m.n}"
    h = headers(m, addr(UTILITY[m.lang], "billing@voltaria.example"), t["subj"],
                extra=[("Authentication-Results", auth_pass(m.c["dom"], "voltaria.example", ip_for(m, "192.0.2")))])
    return "Legitimate", ["quoted-printable", "utility-bill", "html"], h, alternative(t["lines"], (t["cta"], url), m.bnd()), t["must"]


WRONG_CHARSET = {  # (declared label, codec the bytes are really in)
    "en": ("us-ascii", "utf-8"), "pt": ("iso-8859-1", "utf-8"), "es": ("utf-8", "latin-1"),
    "fr": ("windows-1252", "utf-8"), "de": ("utf-8", "latin-1"),
}


def l16(m: Msg):  # the charset label does not match the bytes
    shop, sdom = m.c["shop"]
    t = m.t("order")
    label, real = WRONG_CHARSET[m.lang]
    sign = "– " + shop + " · €" if real == "utf-8" else "- " + shop + " · Ø"
    content = plain(t["lines"] + [sign])
    body = Part([("Content-Type", f"text/plain; charset={label}"), ("Content-Transfer-Encoding", "8bit")],
                content.encode(real))
    h = headers(m, addr(shop, f"orders@{sdom}"), t["subj"],
                extra=[("Authentication-Results", auth_pass(m.c["dom"], sdom, ip_for(m, "192.0.2")))])
    return "Legitimate", ["wrong-charset", "order-confirmation"], h, body, f"Order 48{m.n} confirmed"


def l17(m: Msg):  # Authentication-Results written with encoded words
    col = m.c["colleague"]
    t = m.t("lunch", colleague=col)
    dom = m.c["dom"]
    enc = ew_q if m.lang in ("en", "fr", "de") else ew_b
    ar = f"mx.{dom}; " + enc(f"spf=pass (sender IP is 10.20.0.5) smtp.mailfrom={dom};") + " " + enc(f"dkim=pass header.d={dom}; dmarc=pass header.from={dom}")
    h = headers(m, addr(col, person_mail(col, dom)), t["subj"], extra=[("Authentication-Results", ar)])
    return "Legitimate", ["auth-results-encoded-words", "internal"], h, text_part(plain(t["lines"])), t["must"]


def l18(m: Msg):  # an internal reply with quoted history
    col = m.c["colleague"]
    t = m.t("thread")
    hist = quoted_history(m, "thread", (col, person_mail(col, m.c["dom"])))
    h = headers(m, addr(col, person_mail(col, m.c["dom"])), t["subj"], extra=[
        ("In-Reply-To", f"<{m.tok[::-1]}@{m.c['dom']}>"),
        ("Authentication-Results", auth_pass(m.c["dom"], m.c["dom"], "10.20.0.5"))])
    return "Legitimate", ["internal-thread", "quoted-history"], h, text_part(plain(t["lines"], extra=["\n".join(hist)])), t["must"]


def l19(m: Msg):  # subscription renewal: payment words, a deadline
    brand, dom = m.c["cloud"]
    t = m.t("renew", brand=brand)
    url = f"https://billing.{dom}/subscription"
    h = headers(m, addr(f"{brand} Billing", f"billing@{dom}"), t["subj"],
                extra=[("Authentication-Results", auth_pass(m.c["dom"], dom, ip_for(m, "192.0.2")))])
    return "Legitimate", ["subscription-renewal", "urgency-words", "html"], h, alternative(t["lines"], (t["cta"], url), m.bnd()), t["must"]


def l20(m: Msg):  # sign-up email verification with a code
    brand, dom = m.c["school"]
    t = m.t("verify", brand=brand)
    url = f"https://www.{dom}/verify?t={m.tok}"
    h = headers(m, addr(brand, f"no-reply@{dom}"), t["subj"],
                extra=[("Authentication-Results", auth_pass(m.c["dom"], dom, ip_for(m, "192.0.2")))])
    return "Legitimate", ["email-verification", "verification-code", "html"], h, alternative(t["lines"], (t["cta"], url), m.bnd()), t["must"]


PHISHING_SLOTS = [p01, p02, p03, p04, p05, p06, p07, p08, p09, p10,
                  p11, p12, p13, p14, p15, p16, p17, p18, p19, p20]
LEGIT_SLOTS = [l01, l02, l03, l04, l05, l06, l07, l08, l09, l10,
               l11, l12, l13, l14, l15, l16, l17, l18, l19, l20]
# Real exports do not all end in `.eml`.
EXTENSIONS = {"e4r-en-p07": "", "e4r-es-p10": "", "e4r-de-p15": ".txt", "e4r-pt-l03": ".txt", "e4r-fr-l12": ""}
# Some exports keep CRLF line ends.
CRLF_LANGS = {"es", "de"}
LABEL_COLUMNS = ["file", "label", "language", "split", "patterns", "must_show"]


def assemble(top: list[tuple[str, str]], part: Part, crlf: bool) -> bytes:
    head = "".join(f"{k}: {v}\n" for k, v in top + [("MIME-Version", "1.0")])
    raw = head.encode("ascii") + part.bytes()
    if crlf:
        raw = raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    return raw


def build_all() -> list[tuple[str, bytes, dict]]:
    out = []
    for li, lang in enumerate(LANGS):
        for kind, slots in (("p", PHISHING_SLOTS), ("l", LEGIT_SLOTS)):
            for k, fn in enumerate(slots):
                slot = f"{kind}{k + 1:02d}"
                index = k + (0 if kind == "p" else 20)
                m = Msg(lang, slot, index)
                label, patterns, top, part, must = fn(m)
                raw = assemble(top, part, crlf=lang in CRLF_LANGS and k % 2 == 0)
                name = m.id + EXTENSIONS.get(m.id, ".eml")
                split = "calibrate" if (k + li) % 2 == 0 else "holdout"
                row = dict(file=name, label=label, language=lang, split=split,
                           patterns=";".join(patterns + [lang]), must_show=must)
                out.append((name, raw, row))
    return out


def cmd_make(args) -> int:
    root = Path(args.out)
    msgs = root / "messages"
    if msgs.exists():
        for p in msgs.iterdir():
            p.unlink()
    msgs.mkdir(parents=True, exist_ok=True)
    built = build_all()
    for name, raw, _ in built:
        (msgs / name).write_bytes(raw)
    rows = sorted((r for _, _, r in built), key=lambda r: r["file"])
    with open(root / "labels.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=LABEL_COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {len(built)} messages and labels.csv under {root}")
    return 0



# ---------------------------------------------------------------------------
# measure
# ---------------------------------------------------------------------------

TRUNCATION_MARKER = "[… truncated]"
ENCODED_WORD = re.compile(r"=\?[A-Za-z0-9_.:-]+(?:\*[A-Za-z-]+)?\?[BbQq]\?")
DEFECTS = [
    ("not_in_folder_import", "not taken by the folder import (imported one by one instead)"),
    ("not_imported", "not imported at all (the import refused it, or dropped it as a duplicate)"),
    ("empty_body", "the rendering's body is empty"),
    ("must_show_missing", "the `must_show` phrase is missing from the rendering"),
    ("raw_encoded_word", "a raw `=?charset?B|Q?` encoded word is left in the rendered headers"),
    ("header_misdecoded", "the From display name or the Subject differs from its RFC 2047 decoding"),
    ("unnamed_only_text_part", "an attachment named `unnamed` where the message has one text part"),
    ("truncated", "the body is cut at `[… truncated]`"),
]

# What the reader loses; the import classes and `truncated` are counted apart.
RENDERING_DEFECTS = ["empty_body", "must_show_missing", "raw_encoded_word", "header_misdecoded",
                     "unnamed_only_text_part"]


class MeasureError(Exception):
    pass


def run_step(what: str, cmd: list[str], ok: tuple[int, ...] = (0,)) -> subprocess.CompletedProcess:
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=900)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise MeasureError(f"{what}: could not run `{' '.join(cmd[:6])} …`: {e}") from e
    if p.returncode not in ok:
        tail = p.stderr.decode("utf-8", "replace").strip().splitlines()[-15:]
        raise MeasureError(f"{what} failed (exit {p.returncode}): `{' '.join(cmd[:8])} …`\n  " + "\n  ".join(tail))
    return p


def norm(s: str) -> str:
    return " ".join(unicodedata.normalize("NFC", s).casefold().split())


def text_part_count(raw: bytes) -> int:
    """Leaf parts a mail client would show as text (not attachments)."""
    msg = email.message_from_bytes(raw)
    n = 0
    for part in msg.walk():
        if part.is_multipart():
            continue
        ctype = str(part.get("Content-Type", "text/plain")).strip().lower()
        disp = str(part.get("Content-Disposition", "")).strip().lower()
        if ctype.startswith("text/") and not disp.startswith("attachment") and not part.get_filename():
            n += 1
    return n


# How the rendering shows an invisible character: `[U+200B]`, or
# `[U+200C×3]` for a run of the same one.
INVISIBLE_MARKER = re.compile(r"\[U\+[0-9A-F]{4,6}(?:×[0-9]+)?\]")


def without_invisibles(s: str) -> str:
    """The text with invisible characters left out, raw or as the
    rendering's markers."""
    return "".join(c for c in INVISIBLE_MARKER.sub("", s) if unicodedata.category(c) != "Cf")


def decode_words(value: str) -> str:
    """RFC 2047 as mail clients apply it: adjacent encoded words join with
    no space, also inside a quoted display name."""
    try:
        return str(email.header.make_header(email.header.decode_header(value)))
    except (ValueError, LookupError, UnicodeError):
        return value


def raw_header(raw: bytes, name: str) -> str | None:
    head = re.split(rb"\r?\n\r?\n", raw, maxsplit=1)[0].decode("ascii", "replace")
    head = re.sub(r"\r?\n[ \t]+", " ", head)
    m = re.search(rf"^{name}:[ \t]*(.*)$", head, re.M | re.I)
    return m.group(1).strip() if m else None


def header_misdecoded(raw: bytes, head: str) -> bool:
    """The rendering's From display name or Subject is not what decoding the
    raw header gives (invisible characters aside: rendering them is a choice)."""
    expected = []
    frm = raw_header(raw, "From")
    if frm and "<" in frm:
        expected.append(("From", decode_words(frm.rsplit("<", 1)[0].strip().strip('"'))))
    subject = raw_header(raw, "Subject")
    if subject:
        expected.append(("Subject", decode_words(subject)))
    lines = dict(l.split(": ", 1) for l in head.splitlines() if ": " in l)
    return any(norm(without_invisibles(want)) not in norm(without_invisibles(lines.get(name, "")))
               for name, want in expected)


def split_rendering(question: str) -> tuple[str, str]:
    head, sep, body = question.partition("\n\n")
    return (head, body) if sep else (question, "")


def rendering_defects(row: dict, raw: bytes, question: str) -> list[str]:
    head, body = split_rendering(question)
    out = []
    if not body.strip():
        out.append("empty_body")
    if norm(row["must_show"]) not in norm(question):
        out.append("must_show_missing")
    if ENCODED_WORD.search(head):
        out.append("raw_encoded_word")
    if header_misdecoded(raw, head):
        out.append("header_misdecoded")
    if re.search(r"^Attachments: (?:.*, )?unnamed \(", head, re.M) and text_part_count(raw) == 1:
        out.append("unnamed_only_text_part")
    if TRUNCATION_MARKER in question:
        out.append("truncated")
    return out


def import_rows(svbench: str, inputs: list[Path], labels: Path, out: Path) -> list[dict]:
    run_step("import", [svbench, "data", "import", "e4", "--format", "eml", *map(str, inputs),
                        "--labels", str(labels), "--split", "test", "--evidence-gold", "none",
                        "--no-progress", "--out", str(out)])
    rows = []
    for line in out.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rows.append(json.loads(line))
    return rows


def source_file(row: dict) -> str:
    src = str(row.get("meta", {}).get("source", ""))
    return Path(src.rsplit(":", 1)[0]).name


def rate(k: int, n: int) -> str:
    return f"{k / n:.3f}" if n else "–"


def cmd_measure(args) -> int:
    try:
        print_report(measure(args), args.out)
        return 0
    except MeasureError as e:
        print(f"e4_realistic measure: error: {e}", file=sys.stderr)
        return 2


def print_report(text_: str, out: str | None) -> None:
    sys.stdout.write(text_)
    if out:
        Path(out).write_text(text_, encoding="utf-8")


def measure(args) -> str:
    svbench = args.svbench
    if not (os.path.isfile(svbench) and os.access(svbench, os.X_OK)):
        raise MeasureError(f"no executable svbench binary at {svbench}")
    fixtures = Path(args.fixtures)
    labels_csv = fixtures / "labels.csv"
    if not labels_csv.is_file():
        raise MeasureError(f"{labels_csv} not found (run `make` first?)")
    with open(labels_csv, encoding="utf-8", newline="") as f:
        rows = [r for r in csv.DictReader(f) if args.split == "all" or r["split"] == args.split]
    if not rows:
        raise MeasureError(f"no fixtures in split {args.split}")
    for r in rows:
        if not (fixtures / "messages" / r["file"]).is_file():
            raise MeasureError(f"labels.csv names {r['file']}, which is not in {fixtures / 'messages'}")
    version = run_step("svbench --version", [svbench, "--version"]).stdout.decode().strip()
    sha = hashlib.sha256(Path(svbench).read_bytes()).hexdigest()[:12]
    by_file = {r["file"]: r for r in rows}

    tmp = Path(tempfile.mkdtemp(prefix="e4-realistic-"))
    try:
        msgdir = tmp / "messages"
        msgdir.mkdir()
        for r in rows:
            shutil.copyfile(fixtures / "messages" / r["file"], msgdir / r["file"])
        lab = tmp / "labels.csv"
        lab.write_text("".join(f"{r['file']},{r['label']}\n" for r in rows), encoding="utf-8")

        # The folder, as a user would import it; then whatever it left out, file by file.
        imported: dict[str, dict] = {}
        for row in import_rows(svbench, [msgdir], lab, tmp / "rows-folder.jsonl"):
            imported[source_file(row)] = row
        defects: dict[str, list[str]] = {f: [] for f in by_file}
        seen_q = {row["question"] for row in imported.values()}
        for i, name in enumerate(sorted(set(by_file) - set(imported))):
            defects[name].append("not_in_folder_import")
            try:
                got = import_rows(svbench, [msgdir / name], lab, tmp / f"rows-file-{i}.jsonl")
            except MeasureError:
                got = []
            if len(got) != 1 or got[0]["question"] in seen_q:
                defects[name].append("not_imported")
                continue
            imported[name] = got[0]
            seen_q.add(got[0]["question"])
        for name, row in imported.items():
            raw = (msgdir / name).read_bytes()
            defects[name].extend(rendering_defects(by_file[name], raw, row["question"]))

        # builtin:indicators on every imported row.
        dataset = tmp / "rows.jsonl"
        dataset.write_text("".join(json.dumps(imported[n], ensure_ascii=False) + "\n" for n in sorted(imported)),
                           encoding="utf-8")
        evals = tmp / "evals"
        run_step("eval", [svbench, "eval", "e4", "--dataset", str(dataset), "--model", "builtin:indicators",
                          "--split", "test", "-n", str(len(imported)), "--output-dir", str(evals),
                          "--run-id", "e4-realistic", "--no-progress"])
        results = sorted(evals.glob("**/e4-realistic/results.jsonl"))
        if len(results) != 1:
            raise MeasureError(f"eval wrote {len(results)} results.jsonl files under {evals}, expected 1")
        id_to_file = {row["id"]: n for n, row in imported.items()}
        predicted: dict[str, str] = {}
        for line in results[0].read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            rec = json.loads(line)
            name = id_to_file.get(rec.get("example_id"))
            if name is None:
                raise MeasureError(f"results.jsonl has example_id {rec.get('example_id')} not in the dataset")
            predicted[name] = rec.get("predicted_label") or ("error" if rec.get("error") else "invalid")
        if len(predicted) != len(imported):
            raise MeasureError(f"eval recorded {len(predicted)} of {len(imported)} rows")

        # svbench scan per file: which indicators fire.
        scan = run_step("scan", [svbench, "scan", "--type", "email", "--format", "json", "--no-progress",
                                 *[str(msgdir / n) for n in sorted(by_file)]], ok=(0, 1))
        try:
            report = json.loads(scan.stdout)
        except json.JSONDecodeError as e:
            raise MeasureError(f"scan printed no JSON report: {e}") from e
        findings: dict[str, list[dict]] = {}
        scan_errors: dict[str, str] = {}
        for entry in report.get("files", []):
            name = Path(str(entry.get("path", ""))).name
            findings[name] = list(entry.get("findings", []))
            if entry.get("errors"):
                scan_errors[name] = "; ".join(map(str, entry["errors"]))
        for entry in report.get("skipped", []):
            path = entry.get("path", entry) if isinstance(entry, dict) else entry
            scan_errors.setdefault(Path(str(path)).name, "skipped by scan")
        for name in by_file:
            if name not in findings:
                scan_errors.setdefault(name, "not in the scan report")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    return format_report(args.split, version, sha, rows, defects, predicted, findings, scan_errors)


def format_report(split, version, sha, rows, defects, predicted, findings, scan_errors) -> str:
    out: list[str] = []
    w = out.append
    n_p = sum(r["label"] == "Phishing" for r in rows)
    w("# E4 realistic fixtures: measurement\n\n")
    w(f"- binary: `{version}` (sha256 `{sha}…`)\n")
    w(f"- split: `{split}`: {len(rows)} messages, {n_p} Phishing, {len(rows) - n_p} Legitimate\n")
    skipped = sum("not_in_folder_import" in d for d in defects.values())
    lost = sum("not_imported" in d for d in defects.values())
    w(f"- import: {len(rows) - skipped} taken by the folder import, {skipped - lost} more one by one, {lost} not imported\n\n")

    langs = [l for l in LANGS if any(r["language"] == l for r in rows)]
    w("## Rendering defects by class\n\nMessages with the defect (a message can have several).\n\n")
    w("| class | " + " | ".join(langs) + " | total |\n|---|" + "---:|" * (len(langs) + 1) + "\n")
    for cls, _ in DEFECTS:
        counts = [sum(cls in defects[r["file"]] for r in rows if r["language"] == l) for l in langs]
        w(f"| `{cls}` | " + " | ".join(map(str, counts)) + f" | {sum(counts)} |\n")
    rendering = set(RENDERING_DEFECTS)
    any_defect = [sum(bool(rendering & set(defects[r["file"]])) for r in rows if r["language"] == l) for l in langs]
    w("| any rendering defect (" + ", ".join(f"`{c}`" for c in RENDERING_DEFECTS) + ") | "
      + " | ".join(map(str, any_defect)) + f" | {sum(any_defect)} |\n\n")

    w("## `builtin:indicators` by language\n\n")
    w("Recall: phishing called Phishing (Abstain, Legitimate and rows not evaluated are misses). "
      "FPR: legitimate called Phishing. No indicator: phishing where `svbench scan` finds no phish-polarity "
      "indicator. Legit flagged: legitimate where it finds at least one.\n\n")
    w("| language | phishing | recall | abstain | legitimate | FPR | legit abstain | phishing, no indicator | legit flagged |\n")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")

    def phish_cats(name: str) -> set[str]:
        return {f.get("category") for f in findings.get(name, []) if f.get("polarity") == "phish"}

    for lang in langs + ["all"]:
        sel = [r for r in rows if lang == "all" or r["language"] == lang]
        ph = [r["file"] for r in sel if r["label"] == "Phishing"]
        lg = [r["file"] for r in sel if r["label"] == "Legitimate"]
        caught = sum(predicted.get(f) == "Phishing" for f in ph)
        ab = sum(predicted.get(f) == "Abstain" for f in ph)
        fp = sum(predicted.get(f) == "Phishing" for f in lg)
        lab_ = sum(predicted.get(f) == "Abstain" for f in lg)
        none_ = sum(not phish_cats(f) for f in ph if f not in scan_errors)
        flagged = sum(bool(phish_cats(f)) for f in lg if f not in scan_errors)
        ph_s = len([f for f in ph if f not in scan_errors])
        lg_s = len([f for f in lg if f not in scan_errors])
        name = "**all**" if lang == "all" else lang
        w(f"| {name} | {len(ph)} | {rate(caught, len(ph))} | {ab} | {len(lg)} | {rate(fp, len(lg))} | {lab_} | "
          f"{rate(none_, ph_s)} | {rate(flagged, lg_s)} |\n")
    w("\n")

    w("## Indicators found by `svbench scan`\n\nMessages on which each category fires at least once.\n\n")
    w("| category | polarity | phishing | legitimate |\n|---|---|---:|---:|\n")
    cats: dict[tuple[str, str], list[int]] = {}
    for r in rows:
        seen = {(f.get("category", "?"), f.get("polarity", "?")) for f in findings.get(r["file"], [])}
        for key in seen:
            cats.setdefault(key, [0, 0])[0 if r["label"] == "Phishing" else 1] += 1
    for (cat, pol), (a, b) in sorted(cats.items(), key=lambda kv: (kv[0][1] != "phish", kv[0][0])):
        w(f"| `{cat}` | {pol} | {a} | {b} |\n")
    if scan_errors:
        w("\nScan errors: " + "; ".join(f"`{k}`: {v}" for k, v in sorted(scan_errors.items())) + "\n")
    w("\n")

    w("## Files per defect class\n\n")
    for cls, what in DEFECTS:
        files = sorted(r["file"] for r in rows if cls in defects[r["file"]])
        w(f"- `{cls}` ({what}): " + (", ".join(f"`{f}`" for f in files) if files else "none") + "\n")
    w("\n## Missed phishing\n\n| file | predicted | phish indicators | patterns |\n|---|---|---|---|\n")
    for r in sorted(rows, key=lambda r: r["file"]):
        if r["label"] == "Phishing" and predicted.get(r["file"]) != "Phishing":
            cats_ = ", ".join(sorted(phish_cats(r["file"]))) or "none"
            w(f"| `{r['file']}` | {predicted.get(r['file'], 'not evaluated')} | {cats_} | {r['patterns']} |\n")
    w("\n## False positives\n\n| file | phish indicators | patterns |\n|---|---|---|\n")
    for r in sorted(rows, key=lambda r: r["file"]):
        if r["label"] == "Legitimate" and predicted.get(r["file"]) == "Phishing":
            cats_ = ", ".join(sorted(phish_cats(r["file"]))) or "none"
            w(f"| `{r['file']}` | {cats_} | {r['patterns']} |\n")
    return "".join(out)

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    mk = sub.add_parser("make", help="write the fixture set (deterministic)")
    mk.add_argument("--out", default=str(DEFAULT_DIR), help="fixture folder [fixtures/e4-mail]")
    ms = sub.add_parser("measure", help="measure a svbench binary on the fixture set")
    ms.add_argument("--svbench", required=True, help="path to the svbench binary")
    ms.add_argument("--split", default="all", choices=["calibrate", "holdout", "all"])
    ms.add_argument("--fixtures", default=str(DEFAULT_DIR), help="fixture folder [fixtures/e4-mail]")
    ms.add_argument("--out", help="also write the report to this Markdown file")
    args = ap.parse_args(argv)
    if args.cmd == "make":
        return cmd_make(args)
    return cmd_measure(args)


if __name__ == "__main__":
    sys.exit(main())
